/**
 * Whether a WebGPU number was measured on a software (fallback) adapter such as SwiftShader, and how the page and the
 * comparison say so. One rule for every receipt kind: a route that completed on webgpu ran on the adapter the probe
 * saw, and the probe's `is_fallback_adapter` says whether that adapter is a software one. Pure.
 */
import type { Capabilities } from './receipt.ts';

/** The mark of a route on a software adapter (the comparison's verdicts and the panels print it). */
export const SOFTWARE_ADAPTER_MARK = 'software adapter: timings not representative';

/**
 * Whether a run that completed on `completedEp` ran on a software (fallback) WebGPU adapter: null when it did not run
 * on webgpu, or the browser did not say.
 * @param completedEp the execution provider the run completed on (null: it completed on none)
 * @param capabilities the receipt's capabilities (its WebGPU probe)
 */
export function ranOnSoftwareAdapter(
  completedEp: string | null,
  capabilities: Pick<Capabilities, 'webgpu'>,
): boolean | null {
  return completedEp === 'webgpu' ? capabilities.webgpu.is_fallback_adapter : null;
}

/**
 * The sentence the panels show beside a WebGPU number measured on a software adapter, naming the adapter as the
 * browser described it; null when the run did not complete on a software adapter.
 * @param completedEp the execution provider the run completed on
 * @param capabilities the receipt's capabilities
 */
export function softwareAdapterNote(
  completedEp: string | null,
  capabilities: Pick<Capabilities, 'webgpu'>,
): string | null {
  if (ranOnSoftwareAdapter(completedEp, capabilities) !== true) return null;
  const info = capabilities.webgpu.adapter_info;
  const named = [info?.vendor, info?.architecture, info?.description].filter((part) => part).join(' ');
  const adapter = named ? ` (${named})` : ' such as SwiftShader';
  return `⚠ ${SOFTWARE_ADAPTER_MARK}: WebGPU ran on a software (fallback) adapter${adapter}; these numbers say nothing about a GPU.`;
}
