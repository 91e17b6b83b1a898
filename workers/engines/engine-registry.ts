/**
 * Which adapter serves which engine name. Each entry is a dynamic import so a page that never selects an engine
 * never downloads its code (WebLLM in particular). Engine helpers add their line here.
 */
import type { EngineName } from '../../src/core/receipt/receipt.ts';
import type { Engine } from './engine.ts';

/** Creates a fresh adapter for `name`; throws a clear message for an engine this build does not include. */
export const engineFactories: Record<EngineName, () => Promise<Engine>> = {
  ort: async () => new (await import('./ort-engine.ts')).OrtEngine(),
  transformers: async () => new (await import('./transformers-engine.ts')).TransformersEngine(),
  webllm: async () => new (await import('./webllm-engine.ts')).WebLlmEngine(),
};
