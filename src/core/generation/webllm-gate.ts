/**
 * The WebLLM capability gate, decided BEFORE any WebLLM code or model file is downloaded. WebLLM's own engine
 * creation fetches the model config and library first and only then checks WebGPU, so offline or on a device
 * without WebGPU its only error would be a generic fetch failure after a large download. This gate answers from
 * the WebGPU probe alone, with a reason a tester can act on.
 */

/** What the gate reads from the browser's WebGPU probe. */
export interface WebGpuProbe {
  navigator_gpu: boolean;
  adapter_granted: boolean;
  adapter_error: string | null;
  features: readonly string[];
}

/** The gate's answer: go, or a stable code plus a sentence for the receipt and the page. */
export type GateResult =
  | { ok: true; required_features: string[] }
  | { ok: false; code: 'no-webgpu' | 'no-adapter' | 'missing-feature'; reason: string; required_features: string[] };

/**
 * Whether an MLC quantisation keeps activations/weights in float16 (`q4f16_1`, `q0f16`, ...), which needs the
 * WebGPU `shader-f16` feature. The pattern is MLC's naming: q<bits>f<float bits>[_<variant>].
 * @param quantization the catalog's dtype for a WebLLM model, e.g. `q4f16_1` or `q4f32_1`
 */
export function quantizationNeedsShaderF16(quantization: string | null): boolean {
  return quantization !== null && /^q\d+f16(_|$)/.test(quantization);
}

/**
 * Decides whether a WebLLM model can run here.
 * @param probe the WebGPU probe (navigator.gpu present, adapter granted, adapter features)
 * @param quantization the model's MLC quantisation (catalog dtype); f16 variants need `shader-f16`
 * @param extraRequiredFeatures features the model record itself declares (WebLLM's `required_features`)
 */
export function webLlmGate(
  probe: WebGpuProbe,
  quantization: string | null,
  extraRequiredFeatures: readonly string[] = [],
): GateResult {
  const required = [
    ...new Set([...(quantizationNeedsShaderF16(quantization) ? ['shader-f16'] : []), ...extraRequiredFeatures]),
  ].sort();
  if (!probe.navigator_gpu) {
    return {
      ok: false,
      code: 'no-webgpu',
      required_features: required,
      reason: 'WebLLM needs WebGPU, and this browser has no navigator.gpu; nothing was downloaded',
    };
  }
  if (!probe.adapter_granted) {
    const why = probe.adapter_error ? ` (${probe.adapter_error})` : '';
    return {
      ok: false,
      code: 'no-adapter',
      required_features: required,
      reason: `WebLLM needs WebGPU, and no WebGPU adapter was granted${why}; nothing was downloaded`,
    };
  }
  const missing = required.filter((f) => !probe.features.includes(f));
  if (missing.length > 0) {
    const forWhat =
      missing.includes('shader-f16') && quantizationNeedsShaderF16(quantization)
        ? ` (the ${quantization} quantisation computes in float16)`
        : '';
    return {
      ok: false,
      code: 'missing-feature',
      required_features: required,
      reason: `the WebGPU adapter lacks ${missing.join(', ')}${forWhat}; nothing was downloaded`,
    };
  }
  return { ok: true, required_features: required };
}
