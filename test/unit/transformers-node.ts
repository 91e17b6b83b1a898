/**
 * transformers.js for the Node tests. Its Node build loads ONNX Runtime as `onnxruntime-node`, which this project
 * maps to onnxruntime-web (package.json `overrides`: the native package's install script would download CUDA files,
 * and the page runs the WASM runtime anyway). On import transformers.js points onnxruntime-web's WASM files at a
 * CDN; the tests point them back at the installed package, so nothing is fetched.
 */
import { fileURLToPath, pathToFileURL } from 'node:url';

type Runtime = typeof import('@huggingface/transformers');

const ORT_DIST = pathToFileURL(
  fileURLToPath(new URL('../../node_modules/onnxruntime-web/dist/', import.meta.url)),
).href;

/** Imports transformers.js with onnxruntime-web's WASM files served from node_modules. */
export async function loadTransformers(): Promise<Runtime> {
  const rt = await import('@huggingface/transformers');
  const wasm = rt.env.backends.onnx.wasm as { wasmPaths?: unknown };
  wasm.wasmPaths = ORT_DIST;
  return rt;
}
