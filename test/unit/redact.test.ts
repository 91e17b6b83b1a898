import { describe, expect, it } from 'vitest';
import { containsUnredactedUrl, redactUrl, redactUrlsInText, toResourceEntry } from '../../src/core/text/redact.ts';

describe('redaction (hand-checked)', () => {
  it.each([
    ['https://example.test/a/b?token=x#frag', 'https://example.test/a/b'],
    ['https://user:pass@example.test:8443/p', 'https://example.test:8443/p'],
    ['http://127.0.0.1:5173/?autorun=cold#x', 'http://127.0.0.1:5173/'],
    ['blob:https://example.test/1234-uuid', 'blob:[redacted]'],
    ['data:text/plain,secret', 'data:[redacted]'],
    ['not a url', '[unparseable-url]'],
  ])('redactUrl(%s) = %s', (url, expected) => {
    expect(redactUrl(url)).toBe(expected);
  });

  it('resolves relative URLs against a base, then redacts', () => {
    expect(redactUrl('models/m.onnx?sig=1', 'https://example.test/app/')).toBe(
      'https://example.test/app/models/m.onnx',
    );
  });

  it('redacts every URL inside free text and detects leftovers', () => {
    const text = 'fetch https://h.test/m.onnx?sig=SECRET failed; see http://a:b@h.test/x#y';
    expect(redactUrlsInText(text)).toBe('fetch https://h.test/m.onnx failed; see http://h.test/x');
    expect(containsUnredactedUrl(text)).toBe(true);
    expect(containsUnredactedUrl(redactUrlsInText(text))).toBe(false);
  });

  it('records hidden cross-origin sizes as unknown (null), never zero; same-origin zeros are real', () => {
    const base = {
      initiatorType: 'fetch',
      startTime: 10,
      duration: 5,
      transferSize: 0,
      encodedBodySize: 0,
      decodedBodySize: 0,
    };
    expect(toResourceEntry({ ...base, name: 'https://cdn.test/m.onnx?x=1' }, 'https://page.test')).toEqual({
      url: 'https://cdn.test/m.onnx',
      initiator_type: 'fetch',
      start_ms: 10,
      duration_ms: 5,
      cross_origin: true,
      transfer_size: null,
      encoded_body_size: null,
      decoded_body_size: null,
      size_unknown: true,
    });
    expect(toResourceEntry({ ...base, name: 'https://page.test/m.onnx' }, 'https://page.test')).toMatchObject({
      cross_origin: false,
      transfer_size: 0,
      size_unknown: false,
    });
    expect(
      toResourceEntry(
        { ...base, name: 'https://cdn.test/m', transferSize: 300, encodedBodySize: 200, decodedBodySize: 400 },
        'https://page.test',
      ),
    ).toMatchObject({
      transfer_size: 300,
      size_unknown: false,
    });
  });
});
