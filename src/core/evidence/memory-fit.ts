/**
 * Memory fit for LLMs: would the model's weights at the chosen precision plus its KV cache at a stated context
 * length fit a memory budget? The default budget follows the mobile benchmark rule: weights + KV cache for an
 * 8K-token context within 8 GB (here 8 GiB = 8 * 2^30 bytes). It is an estimate from the published config, shown
 * beside the measured result and never in place of it; a model that should fit but failed or was interrupted on a
 * device is marked `fits-but-failed`.
 */
import { z } from 'zod';
import { detailText } from '../text/bounded-text.ts';
import llmConfigsJson from './llm-configs.v1.json' with { type: 'json' };

export const LLM_CONFIGS_SCHEMA = 'drb.llm-configs.v1';

/** The published numbers the estimate needs (from the model's config.json and model card). */
export const LlmConfig = z.strictObject({
  /** Model ids (as receipts record them) this config applies to. */
  model_ids: z.array(detailText(1024).min(1)).min(1),
  /** Where the numbers come from (repo + revision or URL), so anyone can check them. */
  source: detailText(1024).min(1),
  hidden_size: z.number().int().positive(),
  num_hidden_layers: z.number().int().positive(),
  num_attention_heads: z.number().int().positive(),
  num_key_value_heads: z.number().int().positive(),
  /** Per-head dimension; null means hidden_size / num_attention_heads (the usual default). */
  head_dim: z.number().int().positive().nullable(),
  /** Total parameter count, embeddings included. */
  parameters: z.number().int().positive(),
  /** Bits per weight as deployed (4 for q4 builds, 16 for fp16, ...). Quantisation scales are not counted. */
  weight_bits: z.number().positive(),
  /** Bits per KV-cache element (16 for fp16 caches). */
  kv_cache_bits: z.number().positive(),
});
export type LlmConfig = z.infer<typeof LlmConfig>;

export const LlmConfigs = z.strictObject({
  schema: z.literal(LLM_CONFIGS_SCHEMA),
  version: detailText(1024).min(1),
  configs: z.array(LlmConfig),
});
export type LlmConfigs = z.infer<typeof LlmConfigs>;

/** The LLM configs shipped with the tool. */
export const BUILTIN_LLM_CONFIGS: LlmConfigs = LlmConfigs.parse(llmConfigsJson);

/** 8 GiB and 8K tokens: the mobile benchmark's "fits on a phone" rule. */
export const DEFAULT_MEMORY_BUDGET_BYTES = 8 * 2 ** 30;
export const DEFAULT_CONTEXT_TOKENS = 8192;

export const MemoryFit = z.strictObject({
  weights_bytes: z.number().nonnegative(),
  kv_cache_bytes: z.number().nonnegative(),
  total_bytes: z.number().nonnegative(),
  context_tokens: z.number().int().positive(),
  budget_bytes: z.number().positive(),
  fits: z.boolean(),
});
export type MemoryFit = z.infer<typeof MemoryFit>;

/**
 * KV cache bytes: keys and values (the 2) for every layer, KV head, head dimension and context token.
 * @param config the model's published numbers
 * @param contextTokens the context length the cache must hold
 */
export function kvCacheBytes(config: LlmConfig, contextTokens: number): number {
  const headDim = config.head_dim ?? config.hidden_size / config.num_attention_heads;
  return (
    2 * config.num_hidden_layers * config.num_key_value_heads * headDim * contextTokens * (config.kv_cache_bits / 8)
  );
}

/** Weight bytes at the deployed precision (parameters * bits / 8). */
export function weightsBytes(config: LlmConfig): number {
  return (config.parameters * config.weight_bits) / 8;
}

/**
 * Weights + KV cache against a budget.
 * @param config the model's published numbers
 * @param contextTokens context length for the KV cache (default 8192)
 * @param budgetBytes the memory budget (default 8 GiB)
 */
export function memoryFit(
  config: LlmConfig,
  contextTokens = DEFAULT_CONTEXT_TOKENS,
  budgetBytes = DEFAULT_MEMORY_BUDGET_BYTES,
): MemoryFit {
  const weights = weightsBytes(config);
  const kv = kvCacheBytes(config, contextTokens);
  const total = weights + kv;
  return {
    weights_bytes: weights,
    kv_cache_bytes: kv,
    total_bytes: total,
    context_tokens: contextTokens,
    budget_bytes: budgetBytes,
    fits: total <= budgetBytes,
  };
}

/** The config that names `modelId`, or null (not an LLM the tool knows). */
export function findLlmConfig(configs: LlmConfigs, modelId: string): LlmConfig | null {
  return configs.configs.find((c) => c.model_ids.includes(modelId)) ?? null;
}

/**
 * `fits-but-failed`: the estimate says it fits, yet runs of it failed or were interrupted on this target (the
 * distinct mark the mobile benchmark gives such model/device pairs).
 */
export const FitStatus = z.enum(['fits', 'does-not-fit', 'fits-but-failed']);
export type FitStatus = z.infer<typeof FitStatus>;

/**
 * The fit status of an LLM on one target.
 * @param fit the estimate
 * @param failedOrInterruptedRuns failed plus interrupted runs recorded for the target (its own and related)
 */
export function fitStatus(fit: MemoryFit, failedOrInterruptedRuns: number): FitStatus {
  if (!fit.fits) return 'does-not-fit';
  return failedOrInterruptedRuns > 0 ? 'fits-but-failed' : 'fits';
}
