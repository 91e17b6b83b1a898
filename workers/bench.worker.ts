// The bench worker entry: all logic lives in BenchWorkerApi (importable and testable); this file only exposes it.
// The runtime observers go in first, before any runtime is instantiated (workers/runtime-observer.ts).
import { expose } from 'comlink';
import { installConsoleCapture, installWasmMemoryWatch } from './runtime-observer.ts';
import { BenchWorkerApi } from './bench-worker-api.ts';

installConsoleCapture();
installWasmMemoryWatch();
expose(new BenchWorkerApi());
