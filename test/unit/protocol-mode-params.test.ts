// Protocol mode refuses, with one line each, the URL parameters that would choose a run its protocol fixes, and names
// the shipped protocols for one it has no file for (src/core/automation/protocol-mode-params.ts).
import { describe, expect, it } from 'vitest';
import { PARAMS } from '../../src/core/automation/automation.ts';
import {
  PROTOCOL_MODE_PARAMS,
  protocolModeParamProblems,
  unreadableProtocolLine,
} from '../../src/core/automation/protocol-mode-params.ts';

describe('protocolModeParamProblems', () => {
  it('refuses every parameter that chooses a run, one line each naming it and what would work', () => {
    expect(protocolModeParamProblems('?mode=protocol&ep=webgpu&threads=4', 'ort-tiny-xenc-wasm')).toEqual([
      "Invalid ep param in protocol mode: 'webgpu': protocol ort-tiny-xenc-wasm fixes the model, engine, route, threads and warm runs; remove it, choose another protocol (?protocol=<id>), or open the developer panels (?mode=panels)",
      "Invalid threads param in protocol mode: '4': protocol ort-tiny-xenc-wasm fixes the model, engine, route, threads and warm runs; remove it, choose another protocol (?protocol=<id>), or open the developer panels (?mode=panels)",
    ]);
    for (const name of Object.keys(PARAMS)) {
      const lines = protocolModeParamProblems(`?${name}=1`, 'p');
      expect(lines.length, name).toBe(PROTOCOL_MODE_PARAMS.has(name) ? 0 : 1);
    }
  });

  it('reads the parameters that do not choose the run, and ignores parameters the page does not know', () => {
    expect(
      protocolModeParamProblems(
        '?mode=protocol&protocol=x&device_details=full&stage_timeout_ms=900&autorun=cold&driver_fresh=webkit&utm_source=mail',
        'x',
      ),
    ).toEqual([]);
  });

  it('cuts a long value short and keeps it printable', () => {
    const [line] = protocolModeParamProblems(`?model=${encodeURIComponent(`a\u001b[2J${'s'.repeat(100)}`)}`, 'p');
    expect(line).toContain("'a?[2Jsssssssssssssssssssssssssssssssssss...'");
  });
});

describe('unreadableProtocolLine', () => {
  it('names an unknown protocol and the shipped ones', () => {
    expect(unreadableProtocolLine('nope', 404)).toBe(
      "Unknown protocol 'nope': this page has no protocols/nope.json; use one of ort-tiny-xenc-wasm, lfm2.5-350m-q4-wasm, qwen3-0.6b-q4-wasm, bge-reranker-v2-m3-q8-wasm (?protocol=<id>)",
    );
    expect(unreadableProtocolLine('x', 500)).toMatch(
      /^protocols\/x\.json: answered HTTP 500; reload the page, or use one of /,
    );
  });
});
