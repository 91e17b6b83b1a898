/**
 * What a panel says about its route choice BEFORE a run, by the name of the control to change: a model whose engine
 * cannot run on the chosen execution provider, a webgpu choice where the browser granted no adapter, a WebLLM model
 * whose quantisation needs a feature the adapter lacks (with a model from the panel's own list that can run here), and
 * a software adapter whose timings mean nothing. The capability probe and the WebLLM gate are the facts; this turns
 * them into the panels' words. Pure.
 */
import type { CatalogModel } from '../catalog/catalog.ts';
import { ENGINE_CAPABILITIES } from '../engines/engine-capabilities.ts';
import { webLlmGate } from '../generation/webllm-gate.ts';
import type { Capabilities } from '../receipt/receipt.ts';

/** A line about the route choice: `blocks` when the run cannot work as chosen, else a warning about its numbers. */
export interface RouteChoiceNote {
  blocks: boolean;
  line: string;
}

/**
 * The panel's note on its choice, or null when the choice can run and its numbers mean what they say.
 * @param choice the chosen model (null: a user's own model, run by onnxruntime-web or transformers.js), execution
 *   provider, and whether the panel has an "allow fallback to wasm" box and it is ticked (null: the panel has none)
 * @param models the models the panel's Model list offers (an alternative is named only from these)
 * @param capabilities the capability probe (null while it runs: nothing is said yet)
 */
export function routeChoiceNote(
  choice: { model: CatalogModel | null; ep: 'wasm' | 'webgpu'; allowFallback: boolean | null },
  models: readonly CatalogModel[],
  capabilities: Pick<Capabilities, 'webgpu'> | null,
): RouteChoiceNote | null {
  const { model, ep } = choice;
  const devices = model === null ? ['wasm', 'webgpu'] : ENGINE_CAPABILITIES[model.engine].devices;
  const engine = model?.engine === 'webllm' ? 'WebLLM' : 'this engine';
  if (!devices.includes(ep)) {
    return {
      blocks: true,
      line: `Execution provider: ${engine} runs on ${devices.join(' or ')} only; choose ${devices[0]} under Execution provider.`,
    };
  }
  if (capabilities === null) return null;
  const gpu = capabilities.webgpu;
  const canFallBack = devices.includes('wasm');
  if (ep === 'webgpu' && !gpu.adapter_granted) {
    const why = !gpu.navigator_gpu
      ? 'this browser has no WebGPU'
      : `this browser granted no WebGPU adapter${gpu.adapter_error ? ` (${gpu.adapter_error})` : ''}`;
    const ticked = choice.allowFallback === true && canFallBack;
    if (ticked)
      return { blocks: false, line: `Execution provider webgpu: ${why}; the run will fall back to wasm (ticked).` };
    const options = !canFallBack
      ? `choose another model under Model${alternative(models, model, gpu)}`
      : `choose wasm under Execution provider${choice.allowFallback === null ? '' : ', or tick "allow fallback to wasm"'}`;
    return { blocks: false, line: `Execution provider webgpu: ${why}, so this run will fail: ${options}.` };
  }
  if (ep === 'webgpu' && model?.engine === 'webllm') {
    const gate = webLlmGate(gpu, model.dtype ?? null);
    if (!gate.ok && gate.code === 'missing-feature') {
      const lacks = gate.required_features.filter((f) => !gpu.features.includes(f)).join(', ');
      return {
        blocks: false,
        line: `Model: this WebGPU adapter lacks ${lacks}, which ${model.id} needs, so this run will fail before any download: choose another model under Model${alternative(models, model, gpu)}.`,
      };
    }
  }
  if (ep === 'webgpu' && gpu.is_fallback_adapter === true) {
    return {
      blocks: false,
      line: 'Execution provider webgpu: the WebGPU adapter here is a software (fallback) adapter such as SwiftShader: the run works, but its timings say nothing about a GPU.',
    };
  }
  return null;
}

/**
 * ", for example <id>": a model of the panel's list, other than `current`, that can run here (on wasm, or a WebLLM
 * model whose adapter has what it needs), or nothing when the list has none.
 * @param models the panel's Model list
 * @param current the chosen model
 * @param gpu the WebGPU probe
 */
export function alternative(
  models: readonly CatalogModel[],
  current: CatalogModel | null,
  gpu: Pick<Capabilities, 'webgpu'>['webgpu'],
): string {
  const runs = models.find((m) => {
    if (m.id === current?.id) return false;
    const devices: readonly string[] = ENGINE_CAPABILITIES[m.engine].devices;
    if (devices.includes('wasm')) return true;
    return m.engine === 'webllm' && webLlmGate(gpu, m.dtype ?? null).ok;
  });
  if (runs === undefined) return '';
  const wasmOnly = ENGINE_CAPABILITIES[runs.engine].devices.includes('wasm') ? ' on wasm' : '';
  return `, for example ${runs.id}${wasmOnly}`;
}
