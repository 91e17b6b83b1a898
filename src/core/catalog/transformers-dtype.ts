/**
 * Which catalog files a transformers.js model needs for a chosen dtype. transformers.js picks the ONNX file by dtype
 * with a fixed suffix (`onnx/model{suffix}.onnx`, plus `…onnx_data` external data when the export has it); the page
 * fetches and hashes only those files, so choosing a dtype never downloads the other variants.
 */
import type { CatalogFile, CatalogModel } from './catalog.ts';

/** transformers.js 4.3.2's dtype -> file suffix table (utils/dtypes.js DEFAULT_DTYPE_SUFFIX_MAPPING). */
export const TRANSFORMERS_DTYPE_SUFFIX: Readonly<Record<string, string>> = Object.freeze({
  fp32: '',
  fp16: '_fp16',
  int8: '_int8',
  uint8: '_uint8',
  q8: '_quantized',
  q4: '_q4',
  q4f16: '_q4f16',
  bnb4: '_bnb4',
});

// onnx/<name><suffix>.onnx or .onnx_data (external data may be split: .onnx_data_1, ...).
const ONNX_FILE =
  /^(?:.*\/)?onnx\/([A-Za-z0-9_-]+?)(_fp16|_int8|_uint8|_quantized|_q4f16|_q4|_bnb4)?\.onnx(?:_data(?:_\d+)?)?$/;

/**
 * The dtype an ONNX file of the catalog is for, or null for a non-ONNX file (config, tokenizer, ...).
 * @param path the file's path inside the model folder
 */
export function dtypeOfFile(path: string): string | null {
  const match = ONNX_FILE.exec(path);
  if (!match) return null;
  const suffix = match[2] ?? '';
  return Object.keys(TRANSFORMERS_DTYPE_SUFFIX).find((dtype) => TRANSFORMERS_DTYPE_SUFFIX[dtype] === suffix) ?? null;
}

/**
 * Dtypes the catalog has ONNX files for, in the suffix table's order.
 * @param model the catalog entry
 */
export function availableDtypes(model: CatalogModel): string[] {
  const present = new Set(model.files.map((f) => dtypeOfFile(f.path)).filter((d): d is string => d !== null));
  return Object.keys(TRANSFORMERS_DTYPE_SUFFIX).filter((dtype) => present.has(dtype));
}

/**
 * The files to fetch for `dtype`: every non-ONNX file plus the ONNX files of that dtype.
 * @param model the catalog entry
 * @param dtype the chosen dtype
 * @throws Error naming the model and the dtypes it has when the catalog lists no file for `dtype`
 */
export function filesForDtype(model: CatalogModel, dtype: string): CatalogFile[] {
  const onnx = model.files.filter((f) => dtypeOfFile(f.path) === dtype);
  if (onnx.length === 0) {
    throw new Error(
      `model ${model.id} has no ${dtype} files in the catalog (it lists: ${availableDtypes(model).join(', ') || 'none'})`,
    );
  }
  return model.files.filter((f) => dtypeOfFile(f.path) === null || dtypeOfFile(f.path) === dtype);
}
