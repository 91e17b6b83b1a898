/**
 * What to do after a failure, in the words of the panel it appears in: advice must name controls that panel has (the
 * comparison panel has no "allow fallback" box, protocol mode has no route choice). Pure: the panels show the line
 * under the failure's own reason; receipts keep the reason only.
 */

import { FALLBACK_FAILED_TOO, NO_FALLBACK_HINT, sessionFailedPrefix, WEBGPU_UNAVAILABLE } from './route-reasons.ts';

/** The panels a failure can be shown in, each with its own controls. */
export type FailurePanel = 'run' | 'suite' | 'generation' | 'comparison' | 'protocol';

/** The network refused a model file (src/workers/model-fetch.ts names the host). */
const OFFLINE = /could not be fetched from (\S+) .*offline, or the host is blocked/;
/** The runtime build has no kernel for one of the model's operators (onnxruntime's wording). */
const NO_KERNEL = /Could not find an implementation for (\w+)\(\d+\)/;
/** The WebLLM gate: the adapter lacks a feature the model's quantisation or record needs. */
const LACKS_FEATURE = /the WebGPU adapter lacks [a-z0-9-]+/;
/** The server has no such file. */
const HTTP_STATUS = /answered HTTP (\d{3})/;

/** Each panel's Run button, as the advice names it. */
const RUN_BUTTON: Record<FailurePanel, string> = {
  run: 'Cold run or Warm run',
  suite: 'Run suite',
  generation: 'Run generation',
  comparison: 'Run comparison',
  protocol: 'the big button',
};

/**
 * The next step for a failure reason in `panel`, or null when there is no advice beyond the reason itself.
 * @param reason the failure's reason (a receipt's outcome reason, a route's invalid reason)
 * @param panel where it is shown
 * @param alternative ", for example <model id>" naming a model of the panel's list that can run here (or empty)
 */
export function failureAdvice(reason: string, panel: FailurePanel, alternative = ''): string | null {
  if (LACKS_FEATURE.test(reason)) {
    return panel === 'generation'
      ? `This device's WebGPU adapter lacks a feature the model needs: choose another model under Model${alternative}.`
      : "This device's WebGPU adapter lacks a feature the model needs: tell the person who sent you the protocol.";
  }
  const kernel = NO_KERNEL.exec(reason);
  if (kernel) {
    // First: a missing kernel is the precise cause, also where fallback was refused. A wasm route loads onnxruntime-
    // web's plain build, and so does a webgpu route's fallback where WebGPU was not available (only the fallback could
    // run: workers/engines/route.ts `runtimeEpFor`); the WebGPU-capable builds (so also the fallback of a webgpu
    // session that failed) lack some of its CPU kernels, GatherBlockQuantized among them (docs/models.md). A failure
    // on the plain build means it lacks the kernel too.
    if (
      reason.startsWith(sessionFailedPrefix('wasm')) ||
      (reason.startsWith(WEBGPU_UNAVAILABLE) && reason.includes(FALLBACK_FAILED_TOO))
    ) {
      return panel === 'protocol'
        ? `This browser's runtime cannot run the protocol's model (no ${kernel[1]} kernel): tell the person who sent you the protocol; nothing here can change the model.`
        : `Not even onnxruntime-web's plain build (the one a wasm route loads) has a ${kernel[1]} kernel: choose another dtype of the model.`;
    }
    switch (panel) {
      case 'run':
      case 'suite':
      case 'generation':
        return `The runtime build this route loaded has no ${kernel[1]} kernel: choose wasm as the execution provider (a wasm route loads the plain build, which has more CPU kernels), or another dtype of the model.`;
      case 'comparison':
        return `The runtime build of that route has no ${kernel[1]} kernel: compare wasm routes only (they load the plain build, which has more CPU kernels), or choose another dtype of the model.`;
      case 'protocol':
        return `This browser's runtime build cannot run the protocol's model (no ${kernel[1]} kernel): tell the person who sent you the protocol; nothing here can change the route.`;
    }
  }
  if (reason.includes(NO_FALLBACK_HINT)) {
    // Either the browser gave no usable WebGPU, or it did and the model's session failed on it (an fp16 graph on an
    // adapter without shader-f16, an operator the WebGPU provider lacks): the advice says which, and only the second
    // can be helped by another dtype.
    const unavailable = reason.startsWith(WEBGPU_UNAVAILABLE);
    const cause = unavailable
      ? 'This browser gave no usable WebGPU'
      : 'WebGPU could not run this model here (the reason is above)';
    const dtype = unavailable ? '' : ' or another dtype of the model';
    switch (panel) {
      case 'run':
      case 'suite':
        return `${cause}: choose wasm as the execution provider${dtype}, or tick "allow fallback to wasm" to let the run fall back (the receipt records the fallback).`;
      case 'generation':
        return `${cause}: choose wasm as the execution provider${dtype} and run again.`;
      case 'comparison':
        return `${cause}: remove webgpu from Routes (for example wasm-1,wasm-2), or ${unavailable ? 'compare on a device whose browser offers WebGPU' : 'choose another dtype of the model'}.`;
      case 'protocol':
        return "This device cannot run the protocol's WebGPU route: tell the person who sent you the protocol; nothing here can change the route.";
    }
  }
  const offline = OFFLINE.exec(reason);
  if (offline)
    return `Check that this device is online and that nothing blocks ${offline[1]}, then press ${RUN_BUTTON[panel]} again.`;
  const status = HTTP_STATUS.exec(reason);
  if (status && status[1] === '404')
    return 'The server has no such file: the page and its models are out of step; reload the page, and if it stays, report it with this receipt.';
  return null;
}
