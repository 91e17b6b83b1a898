/**
 * The one WebGPU probe, for every browser context that asks: the page's capability probe (recorded in every
 * receipt), the worker's route logic (no adapter: the WebGPU attempt fails with our reason, before the runtime is
 * asked) and WebLLM's capability gate (before anything is downloaded). A worker has its own `navigator.gpu`, so
 * each context probes for itself, with the same code and the same words.
 */
import type { Capabilities } from '../core/receipt/receipt.ts';
import { answerWithin } from './answer-within.ts';
import { WEBGPU_UNAVAILABLE } from '../core/engines/route-reasons.ts';

/** How long the probe waits for an adapter: a request that never answers is recorded as an adapter error. */
export const ADAPTER_REQUEST_LIMIT_MS = 10_000;

/** What the probe records: the receipt's `capabilities.webgpu` section. */
export type WebGpuFacts = Capabilities['webgpu'];

/** The adapter limits a receipt records (the ones that decide whether a model fits). */
const LIMIT_NAMES = [
  'maxBufferSize',
  'maxStorageBufferBindingSize',
  'maxUniformBufferBindingSize',
  'maxComputeWorkgroupStorageSize',
  'maxComputeInvocationsPerWorkgroup',
  'maxComputeWorkgroupSizeX',
  'maxComputeWorkgroupsPerDimension',
  'maxStorageBuffersPerShaderStage',
  'maxBindGroups',
] as const;

interface GpuAdapterLike {
  info?: { vendor: string; architecture: string; device: string; description: string; isFallbackAdapter?: boolean };
  isFallbackAdapter?: boolean;
  features: Iterable<string>;
  limits: Record<string, number>;
}

/** The part of `navigator.gpu` the probe uses (absent where the browser has no WebGPU). */
export interface GpuLike {
  requestAdapter(): Promise<GpuAdapterLike | null>;
}

/** This context's `navigator.gpu`, or undefined (page and worker alike). */
function contextGpu(): GpuLike | undefined {
  return (globalThis.navigator as (Navigator & { gpu?: GpuLike }) | undefined)?.gpu;
}

/**
 * Probes WebGPU in this context: navigator.gpu present, an adapter granted, its info, features and limits. Never
 * throws, and never waits longer than `limitMs` for the adapter: a refused or unanswered request is recorded in
 * `adapter_error`. navigator.gpu's presence alone is a diagnostic, not a claim that WebGPU works.
 * @param gpu the `navigator.gpu` to ask (this context's by default)
 * @param limitMs how long to wait for the adapter request
 */
export async function probeWebGpu(
  gpu: GpuLike | undefined = contextGpu(),
  limitMs = ADAPTER_REQUEST_LIMIT_MS,
): Promise<WebGpuFacts> {
  const none = {
    adapter_granted: false,
    adapter_error: null,
    adapter_info: null,
    is_fallback_adapter: null,
    features: [],
    limits: null,
  };
  if (!gpu) return { navigator_gpu: false, ...none };
  try {
    const adapter = await answerWithin(gpu.requestAdapter(), limitMs, 'requestAdapter');
    if (!adapter) return { navigator_gpu: true, ...none };
    const limits: Record<string, number> = {};
    for (const name of LIMIT_NAMES) if (typeof adapter.limits[name] === 'number') limits[name] = adapter.limits[name];
    const info = adapter.info;
    return {
      navigator_gpu: true,
      adapter_granted: true,
      adapter_error: null,
      adapter_info: info
        ? { vendor: info.vendor, architecture: info.architecture, device: info.device, description: info.description }
        : null,
      is_fallback_adapter: info?.isFallbackAdapter ?? adapter.isFallbackAdapter ?? null,
      features: [...adapter.features].sort(),
      limits,
    };
  } catch (error) {
    return {
      navigator_gpu: true,
      ...none,
      adapter_error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    };
  }
}

/**
 * Why WebGPU cannot run here, in the words a receipt records, or null when an adapter was granted.
 * @param facts what `probeWebGpu` found
 */
export function webgpuUnavailableReason(
  facts: Pick<WebGpuFacts, 'navigator_gpu' | 'adapter_granted' | 'adapter_error'>,
): string | null {
  if (!facts.navigator_gpu) return `${WEBGPU_UNAVAILABLE}: navigator.gpu is missing in this browser`;
  if (facts.adapter_error !== null) return `${WEBGPU_UNAVAILABLE}: requestAdapter failed (${facts.adapter_error})`;
  return facts.adapter_granted ? null : `${WEBGPU_UNAVAILABLE}: navigator.gpu exists but no adapter was granted`;
}
