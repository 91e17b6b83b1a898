/**
 * Turns what the page's own clock saw during one streamed generation (request sent, first token, last token, end)
 * and what the engine reported about itself (WebLLM's `usage.extra`) into one timed sample. Both are kept, with
 * their difference, so a reader can see how far an engine's self-report is from an outside stopwatch.
 */

/** The page clock's view of one streamed generation; every `*_at_ms` is a `performance.now()` reading. */
export interface StreamObservation {
  request_at_ms: number;
  /** When the first generated token (or text chunk) arrived; null when none arrived. */
  first_token_at_ms: number | null;
  /** When the last generated token arrived; null when none arrived. */
  last_token_at_ms: number | null;
  /** When the engine said it was done (the awaited call returned). */
  end_at_ms: number;
  /** Tokens in the prompt as the engine tokenised it (after the chat template); null when unknown. */
  prompt_tokens: number | null;
  /** Tokens the engine generated. */
  output_tokens: number;
  /** `stop`: a natural end or stop sequence; `length`: the token limit; null when the engine does not say. */
  finish_reason: 'stop' | 'length' | 'abort' | 'other' | null;
  /** The token limit the request carried. */
  max_new_tokens: number;
}

/** An engine's own timing report, converted to milliseconds (WebLLM reports seconds). */
export interface EngineReportedTiming {
  ttft_ms: number;
  e2e_ms: number;
  prefill_tokens_per_s: number;
  decode_tokens_per_s: number;
}

/** The timing part of one measured sample. */
export interface TimedSample {
  prompt_tokens: number | null;
  output_tokens: number;
  truncated: boolean;
  ttft_ms: number | null;
  e2e_ms: number;
  prefill_tokens_per_s: number | null;
  decode_tokens_per_s: number | null;
  engine_reported: EngineReportedTiming | null;
  /** Page clock minus engine report, per field; null without an engine report or where either side is missing. */
  clock_minus_engine: { ttft_ms: number | null; e2e_ms: number; decode_tokens_per_s: number | null } | null;
}

/**
 * Times one generation from the page clock, and sets the engine's own report beside it.
 * @param observed the page-clock readings and token counts of the stream
 * @param reported the engine's timing report, or null when the engine gives none (transformers.js)
 */
export function timeGeneration(observed: StreamObservation, reported: EngineReportedTiming | null): TimedSample {
  const { request_at_ms, first_token_at_ms, last_token_at_ms, end_at_ms, output_tokens } = observed;
  if (end_at_ms < request_at_ms) throw new RangeError('end_at_ms is before request_at_ms');
  const ttftMs = first_token_at_ms === null ? null : first_token_at_ms - request_at_ms;
  // Decode speed counts the tokens after the first over the time between first and last token: the first token's
  // time belongs to prefill (that is what TTFT measures), so counting it here would mix the two phases.
  const decodeSpanMs =
    first_token_at_ms !== null && last_token_at_ms !== null ? last_token_at_ms - first_token_at_ms : 0;
  const decodeTokensPerS = output_tokens >= 2 && decodeSpanMs > 0 ? ((output_tokens - 1) * 1000) / decodeSpanMs : null;
  const prefillTokensPerS =
    observed.prompt_tokens !== null && ttftMs !== null && ttftMs > 0 ? (observed.prompt_tokens * 1000) / ttftMs : null;
  // An engine that does not name a finish reason hit the limit exactly when it produced max_new_tokens tokens.
  const truncated =
    observed.finish_reason === null ? output_tokens >= observed.max_new_tokens : observed.finish_reason === 'length';
  const e2eMs = end_at_ms - request_at_ms;
  return {
    prompt_tokens: observed.prompt_tokens,
    output_tokens,
    truncated,
    ttft_ms: ttftMs,
    e2e_ms: e2eMs,
    prefill_tokens_per_s: prefillTokensPerS,
    decode_tokens_per_s: decodeTokensPerS,
    engine_reported: reported,
    clock_minus_engine:
      reported === null
        ? null
        : {
            ttft_ms: ttftMs === null ? null : ttftMs - reported.ttft_ms,
            e2e_ms: e2eMs - reported.e2e_ms,
            decode_tokens_per_s: decodeTokensPerS === null ? null : decodeTokensPerS - reported.decode_tokens_per_s,
          },
  };
}

/** WebLLM's `usage.extra` fields this project reads (seconds and tokens per second). */
export interface WebLlmUsageExtra {
  e2e_latency_s: number;
  prefill_tokens_per_s: number;
  decode_tokens_per_s: number;
  time_to_first_token_s: number;
}

/**
 * Converts WebLLM's `usage.extra` (seconds) to an engine report in milliseconds; null when a field is missing or not
 * a finite number (a report with holes is not used rather than half-used).
 * @param extra the `usage.extra` object of the final stream chunk, as received
 */
export function fromWebLlmUsage(extra: unknown): EngineReportedTiming | null {
  if (extra === null || typeof extra !== 'object') return null;
  const e = extra as Record<string, unknown>;
  const fields = ['e2e_latency_s', 'prefill_tokens_per_s', 'decode_tokens_per_s', 'time_to_first_token_s'] as const;
  for (const field of fields) {
    const value = e[field];
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) return null;
  }
  const x = e as unknown as WebLlmUsageExtra;
  return {
    ttft_ms: x.time_to_first_token_s * 1000,
    e2e_ms: x.e2e_latency_s * 1000,
    prefill_tokens_per_s: x.prefill_tokens_per_s,
    decode_tokens_per_s: x.decode_tokens_per_s,
  };
}
