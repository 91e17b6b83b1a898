/**
 * The built page (from global-setup): only the ORT runtime builds the page's routes use are shipped, the CSP is in
 * index.html for static hosts, and the build carries its version and git commit for receipts.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, inject } from 'vitest';
import { contentSecurityPolicy } from '../../src/core/csp.ts';
import { openAndWait, startPageEnv } from './page-harness.ts';

describe('the build', () => {
  it('ships exactly the three ONNX Runtime WASM builds the routes use (plain for wasm; JSPI, or asyncify without JSPI, for webgpu), no jsep copy', async () => {
    const assets = await readdir(join(inject('distDir'), 'assets'));
    const wasm = assets.filter((name) => name.endsWith('.wasm')).sort();
    expect(wasm).toHaveLength(3);
    expect(wasm[0]).toMatch(/^ort-wasm-simd-threaded-[\w-]+\.wasm$/);
    expect(wasm[1]).toMatch(/^ort-wasm-simd-threaded\.asyncify-[\w-]+\.wasm$/);
    expect(wasm[2]).toMatch(/^ort-wasm-simd-threaded\.jspi-[\w-]+\.wasm$/);
    // Each build's loader beside it, and no other variant of the runtime.
    expect(assets.filter((name) => /^ort-wasm-simd-threaded(\.asyncify|\.jspi)?-[\w-]+\.mjs$/.test(name))).toHaveLength(3);
    expect(assets.filter((name) => /ort-wasm-simd-threaded\.jsep/.test(name))).toEqual([]);
  });

  it('puts the CSP into index.html as a meta tag', async () => {
    const html = await readFile(join(inject('distDir'), 'index.html'), 'utf8');
    const meta = /<meta http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html);
    expect(meta).not.toBeNull();
    const policy = meta![1].replaceAll('&#39;', "'");
    expect(policy.startsWith(contentSecurityPolicy([], true).split(';')[0])).toBe(true);
    expect(policy).not.toContain('frame-ancestors');
    expect(policy).toContain("script-src 'self' 'wasm-unsafe-eval'");
  });

  it('reports its version and git commit (window.drbApp, receipts)', async () => {
    const env = await startPageEnv();
    try {
      const { page } = await openAndWait(env, { autorun: ['cold'] });
      const app = await page.evaluate(() => window.drbApp);
      const [receipt] = await page.evaluate(() => window.drbReceipts);
      const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
      expect(app.version).toBe(pkg.version);
      expect(app.commit).toMatch(/^[0-9a-f]{40}$/);
      expect(receipt.app).toMatchObject({ name: 'device-receipts-bench', version: pkg.version, commit: app.commit });
    } finally {
      await env.close();
    }
  });
});
