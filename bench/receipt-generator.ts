/**
 * Generated receipts for the receipts benchmarks: the captured page receipts (test/fixtures/receipts/, real receipts
 * made by the page) with varied timings, devices, commits and hidden runs from a deterministic PRNG, each still a
 * valid receipt (statistics recomputed, status transitions kept in order).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { summarize } from '../src/core/stats/stats.ts';
import type { DeviceReceipt } from '../src/core/receipt/receipt.ts';
import { validateReceipt } from '../src/core/validation/validate-receipt.ts';
import { mulberry32 } from '../src/core/stats/mulberry32.ts';
import { pageReceipts } from '../test/unit/receipts-fixtures.ts';

/** The user agents the generated receipts spread over. */
export const DEVICES = [
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 Version/18.1 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_6 like Mac OS X) AppleWebKit/605.1.15 Version/17.6 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/131.0.0.0 Mobile Safari/537.36',
  'Mozilla/5.0 (Linux; Android 13; SM-A546B) AppleWebKit/537.36 Chrome/130.0.0.0 Mobile Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 Version/18.1 Safari/605.1.15',
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/156.0.0.0 Safari/537.36',
];
const COMMITS = ['1'.repeat(40), '2'.repeat(40), '3'.repeat(40)];

/** A copy of `template` with varied timings, device, commit and visibility (index `index`, PRNG `random`). */
export function vary(template: DeviceReceipt, index: number, random: () => number): DeviceReceipt {
  const r = structuredClone(template);
  const scale = 0.5 + random() * 1.5;
  const jitter = (v: number) => Math.round(v * scale * (0.9 + random() * 0.2) * 1000) / 1000;
  r.receipt_id = `bench-${String(index).padStart(6, '0')}-${r.receipt_id.slice(0, 8)}`;
  r.run.id = `bench-run-${index}`;
  r.capabilities.user_agent = DEVICES[Math.floor(random() * DEVICES.length)];
  r.capabilities.ua_client_hints = null;
  r.app.commit = COMMITS[Math.floor(random() * COMMITS.length)];
  const t = r.timings;
  if (t.model_fetch_ms !== null) t.model_fetch_ms = jitter(t.model_fetch_ms);
  if (t.session_create_ms !== null) t.session_create_ms = jitter(t.session_create_ms);
  if (t.first_inference_ms !== null) t.first_inference_ms = jitter(t.first_inference_ms);
  t.warm_samples_ms = t.warm_samples_ms.map(jitter);
  t.warm_stats = summarize(t.warm_samples_ms);
  const stages =
    (t.model_fetch_ms ?? 0) +
    (t.session_create_ms ?? 0) +
    (t.first_inference_ms ?? 0) +
    (t.warmup_ms ?? 0) +
    t.warm_samples_ms.reduce((a, b) => a + b, 0);
  t.total_ms = Math.max(jitter(t.total_ms), stages);
  const end = t.total_ms;
  // Keep status transitions monotonic and ending at the new total.
  r.status_transitions = r.status_transitions.map((s, i, all) => ({
    ...s,
    at_ms: i === all.length - 1 ? Math.max(end, s.at_ms) : s.at_ms,
  }));
  r.lifecycle.hidden_during_run = random() < 0.02;
  return r;
}

/**
 * Writes `count` generated receipts, one file each (`r000000.json` ...), into `dir` (made when missing); the first of
 * each template is checked with validateReceipt, so a schema change fails the benchmark instead of measuring errors.
 * @param dir the folder
 * @param count how many
 * @param seed the PRNG seed
 */
export function writeGeneratedReceipts(dir: string, count: number, seed = 20261129): void {
  const templates = pageReceipts();
  const random = mulberry32(seed);
  mkdirSync(dir, { recursive: true });
  for (let i = 0; i < count; i++) {
    const receipt = vary(templates[i % templates.length], i, random);
    if (i < templates.length) {
      const problems = validateReceipt(receipt).problems;
      if (problems.length)
        throw new Error(
          `generated receipt ${i} is invalid: ${problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`,
        );
    }
    writeFileSync(join(dir, `r${String(i).padStart(6, '0')}.json`), JSON.stringify(receipt));
  }
}
