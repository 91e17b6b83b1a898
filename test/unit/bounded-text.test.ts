/**
 * Bounded strings: the URL refinement against the forms WHATWG parsing reads as credentials or other schemes, and the
 * page-side bounding that keeps a real (long) runtime message or a strange browser report inside the schema.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  boundCode,
  boundDetail,
  Detail,
  DETAIL_MAX_CHARS,
  ErrorCode,
  isOriginPathUrl,
  RedactedUrl,
} from '../../src/core/text/bounded-text.ts';
import { boundCapabilities, reduceUserAgent } from '../../src/core/receipt/capability-bounds.ts';
import { Capabilities, type DeviceReceipt } from '../../src/core/receipt/receipt.ts';
import { receiptText, redactUrl } from '../../src/core/text/redact.ts';

describe('URL fields equal the origin + path of their own WHATWG parse', () => {
  it.each([
    ['https:user:pw@host/', false],
    ['https:\\\\user:pw@host/', false],
    ['https:/user:pw@host/m.onnx', false],
    ['https://user:pw@host/', false],
    ['javascript:alert(1)', false],
    ['data:text/html,<script>alert(1)</script>', false],
    ['HTTPS://HOST/m.onnx', false],
    ['https://host/m.onnx?sig=1', false],
    ['https://host/m.onnx#x', false],
    ['https://host/a b', false],
    ['https://host', false],
    ['chrome-extension://abc/x.js', false],
    ['https://host/', true],
    ['http://127.0.0.1:39909/models/ort-tiny-xenc/model.onnx', true],
    ['https://huggingface.co/onnx-community/Qwen3-0.6B-ONNX/resolve/abc123/onnx/model_q4.onnx', true],
  ])('%s -> %s', (url, ok) => {
    expect(isOriginPathUrl(url)).toBe(ok);
    expect(RedactedUrl.safeParse(url).success).toBe(ok);
  });

  it('accepts the markers the redaction writes, and the redaction of every refused form is accepted', () => {
    for (const marker of ['data:[redacted]', 'blob:[redacted]', '[unparseable-url]'])
      expect(RedactedUrl.safeParse(marker).success).toBe(true);
    for (const url of [
      'https:user:pw@host/',
      'https:\\\\user:pw@host/',
      'https:/user:pw@host/m.onnx',
      'javascript:alert(1)',
      'data:text/html,x',
      'chrome-extension://abc/x.js',
      `https://h/${'p'.repeat(3000)}`,
    ]) {
      const redacted = redactUrl(url);
      expect(RedactedUrl.safeParse(redacted).success, `${url} -> ${redacted}`).toBe(true);
    }
    expect(redactUrl('https:user:pw@host/m.onnx')).toBe('https://host/m.onnx');
    expect(redactUrl('chrome-extension://abc/x.js')).toBe('chrome-extension:[redacted]');
    expect(redactUrl(`https://h/${'p'.repeat(3000)}`)).toBe('https://h/[redacted-long-path]');
  });
});

describe('bounding at the source', () => {
  it('cuts a long multi-line runtime message to the schema bound, URLs redacted, controls replaced', () => {
    const ortLike = Array.from(
      { length: 400 },
      (_, i) =>
        `[E:onnxruntime:, inference_session.cc:${i}] Exception during initialization: https://h.test/m.onnx?sig=${i}\u0007`,
    ).join('\n');
    const text = receiptText(ortLike);
    expect(text.length).toBe(DETAIL_MAX_CHARS);
    expect(text.endsWith('…')).toBe(true);
    expect(text).not.toMatch(/sig=|\u0007/);
    expect(Detail.safeParse(text).success).toBe(true);
    expect(boundDetail('short')).toBe('short');
    expect(boundDetail(`${'a'.repeat(DETAIL_MAX_CHARS - 2)}😀😀`).length).toBeLessThanOrEqual(DETAIL_MAX_CHARS);
  });

  it('keeps an error name that is a code and turns anything else into Error', () => {
    for (const name of ['RouteError', 'WorkerFailure', 'AbortError', 'e', '$t']) expect(boundCode(name)).toBe(name);
    for (const name of ['Error: x', '<img>', '', 'a'.repeat(65)]) expect(boundCode(name)).toBe('Error');
    for (const name of ['RouteError', 'e']) expect(ErrorCode.safeParse(name).success).toBe(true);
  });

  it('bounds what a browser reports so the capabilities always pass the receipt schema', () => {
    const receipt = JSON.parse(
      readFileSync(new URL('../fixtures/receipts/07-ort-webgpu-cold-ok.json', import.meta.url), 'utf8'),
    ) as DeviceReceipt;
    const hostile: Capabilities = {
      ...receipt.capabilities,
      user_agent: `Mozilla/5.0 ${'x'.repeat(5000)}\u0000`,
      ua_client_hints: {
        brands: Array.from({ length: 40 }, (_, i) => ({ brand: `B${i}\u202e`, version: '1'.repeat(200) })),
        mobile: false,
        platform: 'Linux\r\n| forged |',
        platform_version: 'v'.repeat(500),
        architecture: null,
        model: 'm'.repeat(500),
        full_version_list: null,
      },
      webgpu: {
        ...receipt.capabilities.webgpu,
        adapter_error: 'e'.repeat(9000),
        adapter_info: { vendor: 'v'.repeat(900), architecture: 'a', device: 'd', description: 'x\u0000y' },
        features: ['shader-f16', '<img onerror>', 'Feature With Spaces'],
      },
    };
    expect(Capabilities.safeParse(hostile).success).toBe(false);
    const bounded = boundCapabilities(hostile);
    expect(Capabilities.safeParse(bounded).error?.issues ?? []).toEqual([]);
    expect(bounded.webgpu.features).toEqual(['shader-f16']);
    expect(bounded.ua_client_hints?.platform).toBe('Linux\uFFFD\uFFFD| forged |');
    expect(boundCapabilities(receipt.capabilities)).toEqual(receipt.capabilities);
  });
});

describe('device details: reduced unless the tester chose full', () => {
  it.each([
    [
      'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.7390.54 Mobile Safari/537.36',
      'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.0 (KHTML, like Gecko) Chrome/156.0.0.0 Mobile Safari/537.0',
    ],
    [
      'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
      'Mozilla/5.0 (iPhone; CPU iPhone OS 18_0_0 like Mac OS X) AppleWebKit/605.0.0 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.0',
    ],
    [
      'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0',
      'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0',
    ],
  ])('reduceUserAgent(%s)', (ua, reduced) => {
    expect(reduceUserAgent(ua)).toBe(reduced);
    expect(reduceUserAgent(reduced)).toBe(reduced);
  });

  it('a receipt records the choice: device_details is required and only reduced or full', () => {
    const receipt = JSON.parse(
      readFileSync(new URL('../fixtures/receipts/01-ort-wasm-t1-cold-ok.json', import.meta.url), 'utf8'),
    ) as DeviceReceipt;
    expect(receipt.capabilities.device_details).toBe('reduced');
    const { device_details: _dropped, ...without } = receipt.capabilities;
    expect(Capabilities.safeParse(without).success).toBe(false);
    expect(Capabilities.safeParse({ ...receipt.capabilities, device_details: 'some' }).success).toBe(false);
  });
});
