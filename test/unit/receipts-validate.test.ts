/**
 * `drb receipts validate` and validateReceipt: every validation error, each triggered by mutating a copy of a
 * valid receipt (the captured page receipts in test/fixtures/receipts/ once present, the builder otherwise).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DeviceReceipt } from '../../src/core/receipt/receipt.ts';
import { isTextFieldKey } from '../../src/core/evidence/text-fields.ts';
import { validateReceipt } from '../../src/core/validation/validate-receipt.ts';
import { runCli } from './cli-harness.ts';
import { pageReceipts } from './receipts-fixtures.ts';
import { testTempDir } from '../temp-dir.ts';

const clone = <T>(value: T): T => structuredClone(value);

const base = (kind: 'cold' | 'warm' = 'cold'): DeviceReceipt => {
  const found = pageReceipts().find((r) => r.run.kind === kind && r.outcome.status === 'ok');
  if (!found) throw new Error(`no ok ${kind} receipt among the fixtures`);
  return clone(found);
};

function problemsOf(value: unknown): string[] {
  return validateReceipt(value).problems.map((p) => `${p.path}: ${p.message}`);
}

describe('validateReceipt', () => {
  it('accepts every captured page receipt, ok and failed', () => {
    const all = pageReceipts();
    expect(all.length).toBeGreaterThan(0);
    for (const receipt of all) expect(problemsOf(receipt), receipt.receipt_id).toEqual([]);
  });

  it('has captured page receipts for every scenario the tests rely on', () => {
    const all = pageReceipts();
    const has = (f: (r: DeviceReceipt) => boolean) => all.some(f);
    expect(has((r) => r.run.kind === 'cold' && r.outcome.status === 'ok')).toBe(true);
    expect(has((r) => r.run.kind === 'warm' && r.outcome.status === 'ok' && r.timings.warm_samples_ms.length > 0)).toBe(
      true,
    );
    expect(has((r) => r.route.completed_ep === 'wasm' && r.route.threads_effective === 1)).toBe(true);
    expect(has((r) => r.route.completed_ep === 'wasm' && r.route.threads_effective === 2)).toBe(true);
    expect(
      has(
        (r) => r.route.requested_ep === 'webgpu' && r.route.completed_ep === 'wasm' && r.route.fallback_reason !== null,
      ),
    ).toBe(true);
    expect(has((r) => r.outcome.status === 'failed')).toBe(true);
    expect(has((r) => r.run.previous_run_interrupted !== null)).toBe(true);
  });

  it('reports a JSON file with a schema it does not know as not a drb artifact, and an earlier summary as retired', () => {
    expect(validateReceipt({ schema: 'acme.thing.v3' })).toMatchObject({
      kind: 'not-a-receipt',
      problems: [{ path: 'schema', message: 'not a drb artifact this tool knows (schema "acme.thing.v3")' }],
    });
    expect(validateReceipt({ schema: 'drb.receipts-summary.v1' })).toMatchObject({
      kind: 'artifact',
      problems: [
        {
          path: 'schema',
          message:
            'is drb.receipts-summary.v1, from an earlier drb version (this tool reads drb.receipts-summary.v3); make it again',
        },
      ],
    });
    expect(validateReceipt([1, 2]).kind).toBe('not-a-receipt');
  });

  it('reports each schema issue with its field path', () => {
    const r = base() as unknown as Record<string, any>;
    delete r.receipt_id;
    r.route.requested_ep = 'cuda';
    r.model.files.push({ url: 'x', bytes: -1, sha256: 'nothex', expected_bytes: null, expected_sha256: null });
    const problems = problemsOf(r);
    expect(problems).toContain('receipt_id: Invalid input: expected string, received undefined');
    expect(problems.some((p) => p.startsWith('route.requested_ep: '))).toBe(true);
    const last = r.model.files.length - 1;
    expect(problems).toContain(`model.files[${last}].bytes: Too small: expected number to be >=0`);
    expect(problems).toContain(`model.files[${last}].sha256: expected a lowercase hex SHA-256`);
  });

  it('refuses text fields anywhere, with a plain message, once per field', () => {
    const r = base() as unknown as Record<string, any>;
    r.output_text = 'hello';
    r.run.prompt = 'secret prompt';
    r.errors.push({ stage: null, name: 'Error', message: 'm', inputText: 'x' });
    const problems = problemsOf(r);
    const msg = 'looks like a text field: receipts never hold input, output or typed text';
    expect(problems).toContain(`output_text: ${msg}`);
    expect(problems).toContain(`run.prompt: ${msg}`);
    expect(problems).toContain(`errors[${r.errors.length - 1}].inputText: ${msg}`);
    expect(problems.filter((p) => p.startsWith('output_text'))).toHaveLength(1);
    // A count under a text-like name is not text (the strict schema still refuses the unknown key).
    const counted = base() as unknown as Record<string, any>;
    counted.run.prompt_count = 3;
    counted.run.prompt = 3;
    expect(problemsOf(counted)).toEqual([
      'run.prompt_count: is not a receipt field (receipts are strict)',
      'run.prompt: is not a receipt field (receipts are strict)',
    ]);
    // Any other unknown key is refused by the strict schema.
    const other = base() as unknown as Record<string, any>;
    other.model.colour = 'red';
    expect(problemsOf(other)).toEqual(['model.colour: is not a receipt field (receipts are strict)']);
  });

  it('names text-like keys in any casing and leaves receipt keys alone', () => {
    for (const key of [
      'text',
      'output_text',
      'outputText',
      'prompt',
      'answer',
      'completion',
      'decoded-text',
      'user_prompts',
    ]) {
      expect(isTextFieldKey(key), key).toBe(true);
    }
    for (const key of ['message', 'name', 'description', 'context_tokens', 'texture', 'reason', 'sha256', 'head']) {
      expect(isTextFieldKey(key), key).toBe(false);
    }
  });

  it('refuses a URL with a query or fragment in a URL field and inside free text', () => {
    const r = base();
    r.app.page_url = 'https://example.org/bench/?token=abc';
    expect(problemsOf(r)).toContain('app.page_url: URL must be origin + path only (no query, fragment or credentials)');
    const s = base();
    s.errors.push({ stage: null, name: 'Error', message: 'fetch https://host.example/m.onnx#frag failed' });
    expect(problemsOf(s)).toContain(
      `errors[${s.errors.length - 1}].message: holds a URL with a query, fragment or credentials`,
    );
  });

  it('checks route honesty', () => {
    const noAttempt = base();
    noAttempt.route.attempts = noAttempt.route.attempts.map((a) => ({ ...a, outcome: 'failed', reason: 'x' }));
    expect(problemsOf(noAttempt)).toContain(
      `route.completed_ep: claims "${noAttempt.route.completed_ep}" without a succeeded attempt on it`,
    );

    const silentFallback = base();
    silentFallback.route.requested_ep = silentFallback.route.completed_ep === 'wasm' ? 'webgpu' : 'wasm';
    silentFallback.route.allow_fallback = true;
    expect(problemsOf(silentFallback)).toContain(
      'route.fallback_reason: requested and completed EP differ but no fallback reason is given',
    );

    const reasonWithoutFallback = base();
    reasonWithoutFallback.route.fallback_reason = 'because';
    expect(problemsOf(reasonWithoutFallback)).toContain(
      'route.fallback_reason: is set although the requested EP completed',
    );

    const forbidden = base();
    forbidden.route.requested_ep = forbidden.route.completed_ep === 'wasm' ? 'webgpu' : 'wasm';
    forbidden.route.fallback_reason = 'no adapter';
    forbidden.route.allow_fallback = false;
    expect(problemsOf(forbidden)).toContain(
      'route.completed_ep: fell back to another EP although fallback was not allowed',
    );
  });

  it('recomputes warm median and p95 from the samples', () => {
    const r = base('warm');
    r.timings.warm_stats!.median += 1;
    r.timings.warm_stats!.p95 = r.timings.warm_stats!.min;
    const problems = problemsOf(r);
    expect(problems.some((p) => p.startsWith('timings.warm_stats.median: is '))).toBe(true);
    expect(problems.some((p) => p.startsWith('timings.warm_stats.p95: is '))).toBe(true);
    const noStats = base('warm');
    noStats.timings.warm_stats = null;
    expect(problemsOf(noStats)).toContain('timings.warm_stats: samples given without statistics');
  });

  it('refuses a runtime build that contradicts the route, or names a build without its hashed .wasm or fetch time', () => {
    // The captured fixtures predate the recorded build: give one the shape today's page writes.
    const r = base();
    const wasm = r.runtime.files.find((f) => f.url.endsWith('.wasm'))!;
    const today = (): DeviceReceipt => {
      const c = clone(r);
      c.route = { ...c.route, requested_ep: 'wasm', completed_ep: 'wasm', fallback_reason: null };
      c.runtime = {
        build: 'plain',
        files: [{ ...wasm, url: wasm.url.replace(/[^/]+$/, 'ort-wasm-simd-threaded-x.wasm'), sha256: 'a'.repeat(64) }],
      };
      c.timings.runtime_fetch_ms = 800;
      return c;
    };
    expect(problemsOf(today()).filter((p) => p.startsWith('runtime') || p.startsWith('timings.runtime'))).toEqual([]);
    const onGpu = today();
    onGpu.route = { ...onGpu.route, requested_ep: 'webgpu', completed_ep: 'webgpu' };
    expect(problemsOf(onGpu)).toContain(
      'runtime.build: is "plain", which has no WebGPU execution provider, but webgpu completed',
    );
    const unhashed = today();
    unhashed.runtime.files[0].sha256 = null;
    expect(problemsOf(unhashed)).toContain("runtime.files: the plain build's .wasm has no SHA-256");
    const untimed = today();
    untimed.timings.runtime_fetch_ms = null;
    expect(problemsOf(untimed)).toContain(
      'timings.runtime_fetch_ms: a cold run that created a session on a fetched runtime says how long the fetch took',
    );
  });

  it('refuses an ok receipt that completed no inference, and a failed one without a reason', () => {
    const r = base();
    r.run.inferences_completed = 0;
    expect(problemsOf(r)).toContain('outcome.status: is "ok" but no inference completed');
    const failed = base();
    failed.outcome = { status: 'failed', reason: null, failed_stage: 'fetch' };
    expect(problemsOf(failed)).toContain('outcome.reason: a failed run must say why');
  });
});

describe('drb receipts validate', () => {
  const dir = () => testTempDir('drb-validate-');

  it('exits 0 with a count when every receipt in a folder (recursed) passes', async () => {
    const d = dir();
    mkdirSync(join(d, 'sub'));
    writeFileSync(join(d, 'a.json'), JSON.stringify(base()));
    writeFileSync(join(d, 'sub', 'b.json'), JSON.stringify(base('warm')));
    writeFileSync(join(d, 'notes.txt'), 'ignored: not .json');
    const run = await runCli(['receipts', 'validate', d]);
    expect(run).toMatchObject({ code: 0, stdout: 'ok: 2 receipt(s) valid\n' });
  });

  it('exits 1 with one line per problem: file, field path, what is wrong', async () => {
    const d = dir();
    const bad = base();
    bad.run.inferences_completed = 0;
    writeFileSync(join(d, 'bad.json'), JSON.stringify(bad));
    writeFileSync(join(d, 'broken.json'), '{"schema": ');
    writeFileSync(join(d, 'other.json'), JSON.stringify({ schema: 'drb.public-pass.v1' }));
    writeFileSync(join(d, 'good.json'), JSON.stringify(base()));
    writeFileSync(join(d, 'latin1.json'), Buffer.from([0x7b, 0x22, 0xe9, 0x22, 0x3a, 0x31, 0x7d]));
    const run = await runCli(['receipts', 'validate', d]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(`${join(d, 'latin1.json')}: (document): not valid UTF-8\n`);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines).toContain(`${join(d, 'bad.json')}: outcome.status: is "ok" but no inference completed`);
    expect(lines.some((l) => l.startsWith(`${join(d, 'broken.json')}: (document): not valid JSON: `))).toBe(true);
    // A public-pass record is checked by its own schema (here: its fields are missing), not called "not a receipt".
    expect(lines).toContain(`${join(d, 'other.json')}: evidence_state: Invalid input: expected "PUBLIC_PASS"`);
    expect(lines.some((l) => l.includes('good.json'))).toBe(false);
    expect(run.stderr).toBe('4 of 5 file(s) failed validation\n');
  });

  it('exits 2 for a missing path or a folder without JSON files', async () => {
    const missing = await runCli(['receipts', 'validate', '/nonexistent/receipts']);
    expect(missing).toMatchObject({ code: 2, stderr: 'error: /nonexistent/receipts: no such file or folder\n' });
    const d = dir();
    const empty = await runCli(['receipts', 'validate', d]);
    expect(empty).toMatchObject({
      code: 2,
      stderr: `error: ${d}: no .json files found (an empty input is not a pass)\n`,
    });
  });

  it('runs as the real binary', () => {
    const d = dir();
    writeFileSync(join(d, 'a.json'), JSON.stringify(base()));
    const result = spawnSync(process.execPath, ['bin/drb.mjs', 'receipts', 'validate', d], { encoding: 'utf8' });
    expect(result.status).toBe(0);
    expect(result.stdout).toBe('ok: 1 receipt(s) valid\n');
  });
});
