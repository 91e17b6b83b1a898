// The bench worker entry: all logic lives in BenchWorkerApi (importable and testable); this file only exposes it.
import { expose } from 'comlink';
import { BenchWorkerApi } from './bench-worker-api.ts';

expose(new BenchWorkerApi());
