/**
 * The pure pieces the developer panels draw with: the ONNX framing check your own model's files pass before the
 * runtime sees them (real graphs from public/models/ and hostile files from test/fixtures/hostile/onnx/), the strip
 * charts' shared value axis, the software-adapter rule the panels share with the comparison, and what a panel says
 * about its route choice before a run.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { alternative, routeChoiceNote } from '../../src/core/automation/route-choice.ts';
import { parseCatalog } from '../../src/core/catalog/catalog.ts';
import { routeOnSoftwareAdapter } from '../../src/core/comparison/comparison-verdict.ts';
import { canRun } from '../../src/core/engines/engine-capabilities.ts';
import { failureAdvice } from '../../src/core/engines/failure-advice.ts';
import type { Capabilities } from '../../src/core/receipt/receipt.ts';
import { ranOnSoftwareAdapter, softwareAdapterNote } from '../../src/core/receipt/software-adapter.ts';
import { chartScale, scaleFraction } from '../../src/core/stats/chart-scale.ts';
import { ONNX_HEAD_BYTES, onnxFramingProblem } from '../../src/core/user-model/onnx-framing.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** Every .onnx graph the repository ships under public/models/. */
function shippedGraphs(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.onnx')) out.push(path);
    }
  };
  walk('public/models');
  return out;
}

const check = (bytes: Uint8Array, total = bytes.length) =>
  onnxFramingProblem(bytes.subarray(0, ONNX_HEAD_BYTES), total);

describe('onnxFramingProblem', () => {
  const graphs = shippedGraphs();
  it('finds the shipped graphs', () => expect(graphs.length).toBeGreaterThanOrEqual(10));
  it.each(graphs)('accepts %s, by its head and whole', (path) => {
    const bytes = new Uint8Array(readFileSync(join(root, path)));
    expect(check(bytes)).toBeNull();
    expect(onnxFramingProblem(bytes, bytes.length)).toBeNull();
  });

  const hostile: Array<[string, RegExp]> = [
    ['json-renamed.onnx', /starts like JSON/],
    ['html-error-page.onnx', /starts like HTML/],
    ['empty.onnx', /is empty/],
    ['truncated.onnx', /runs past the end of the file/],
    ['external-data.onnx', /not a ModelProto/],
    ['zip-archive.onnx', /starts like a ZIP archive/],
    ['ir-version-zero.onnx', /ir_version is 0/],
    ['text-format.onnx', /starts like text/],
  ];
  it.each(hostile)('refuses hostile %s in one line saying what was expected', (name, why) => {
    const bytes = new Uint8Array(readFileSync(join(root, 'test/fixtures/hostile/onnx', name)));
    const line = check(bytes);
    expect(line).toMatch(/^expected an ONNX graph \(a protobuf ModelProto that starts with its ir_version\), but /);
    expect(line).toMatch(why);
    expect(line).not.toContain('\n');
  });
  it('refuses a real graph cut short, even when only its head is read', () => {
    const bytes = new Uint8Array(readFileSync(join(root, 'public/models/ort-heavy-xenc/model.onnx')));
    expect(check(bytes.subarray(0, 100_000))).toMatch(/runs past the end/);
    // The head alone of the whole file is fine: its graph runs past the head but not past the file.
    expect(check(bytes)).toBeNull();
  });
});

describe('chartScale', () => {
  it('is linear from 0 with round ticks when the values span less than a decade', () => {
    const scale = chartScale([19.6, 21, 25.3]);
    expect(scale.kind).toBe('linear');
    expect(scale.min).toBe(0);
    expect(scale.ticks).toEqual([0, 10, 20, 30]);
    expect(scale.max).toBe(30);
  });
  it('is log (powers of ten) when two series side by side span more than a decade', () => {
    const scale = chartScale([19.6, 20.1, 1161, 1200]);
    expect(scale).toEqual({ kind: 'log', min: 10, max: 10_000, ticks: [10, 100, 1000, 10_000] });
    expect(scaleFraction(scale, 100)).toBeCloseTo(1 / 3);
    // The two series sit apart, not at one height.
    expect(scaleFraction(scale, 1161) - scaleFraction(scale, 19.6)).toBeGreaterThan(0.5);
  });
  it('stays linear with a zero among the values, and survives none or non-finite ones', () => {
    expect(chartScale([0, 5, 500]).kind).toBe('linear');
    expect(chartScale([])).toEqual({ kind: 'linear', min: 0, max: 1, ticks: [0, 1] });
    expect(chartScale([Number.NaN, Number.POSITIVE_INFINITY, 3]).max).toBeGreaterThanOrEqual(3);
  });
  it('clamps positions', () => {
    const scale = chartScale([1, 2]);
    expect(scaleFraction(scale, -5)).toBe(0);
    expect(scaleFraction(scale, 99)).toBe(1);
  });
});

describe('software adapter', () => {
  const caps = (fallback: boolean | null): Pick<Capabilities, 'webgpu'> => ({
    webgpu: {
      navigator_gpu: true,
      adapter_granted: true,
      adapter_error: null,
      adapter_info: { vendor: 'google', architecture: 'swiftshader', device: '', description: '' },
      is_fallback_adapter: fallback,
      features: [],
      limits: null,
    },
  });
  it('is the same rule for the panels and the comparison', () => {
    for (const fallback of [true, false, null]) {
      for (const ep of ['webgpu', 'wasm', null]) {
        expect(ranOnSoftwareAdapter(ep, caps(fallback))).toBe(
          routeOnSoftwareAdapter({ completed_ep: ep as 'webgpu' | 'wasm' | null }, caps(fallback) as Capabilities),
        );
      }
    }
  });
  it('names the adapter only for a webgpu run on a fallback adapter', () => {
    expect(softwareAdapterNote('webgpu', caps(true))).toMatch(/software \(fallback\) adapter \(google swiftshader\)/);
    expect(softwareAdapterNote('wasm', caps(true))).toBeNull();
    expect(softwareAdapterNote('webgpu', caps(false))).toBeNull();
    expect(softwareAdapterNote('webgpu', caps(null))).toBeNull();
  });
});

describe('routeChoiceNote', () => {
  const catalog = parseCatalog(
    JSON.parse(readFileSync(join(root, 'src/catalog/catalog.json'), 'utf8')),
    'catalog.json',
  );
  const generate = catalog.models.filter((m) => canRun(m, 'generate'));
  const webllm = generate.find((m) => m.engine === 'webllm')!;
  const gpu = (patch: Partial<Capabilities['webgpu']>): Pick<Capabilities, 'webgpu'> => ({
    webgpu: {
      navigator_gpu: true,
      adapter_granted: true,
      adapter_error: null,
      adapter_info: null,
      is_fallback_adapter: false,
      features: ['shader-f16'],
      limits: null,
      ...patch,
    },
  });
  it('WebLLM on wasm: blocks, naming the control to change (not URL syntax)', () => {
    const note = routeChoiceNote({ model: webllm, ep: 'wasm', allowFallback: null }, generate, null);
    expect(note).toEqual({
      blocks: true,
      line: 'Execution provider: WebLLM runs on webgpu only; choose webgpu under Execution provider.',
    });
    expect(note?.line).not.toContain('ep=');
  });
  it('webgpu with no adapter: says so before the run, with the controls that help in that panel', () => {
    const none = gpu({ adapter_granted: false, adapter_error: 'no adapter' });
    const model = catalog.models.find((m) => m.id === catalog.default_model)!;
    expect(routeChoiceNote({ model, ep: 'webgpu', allowFallback: false }, catalog.models, none)?.line).toBe(
      'Execution provider webgpu: this browser granted no WebGPU adapter (no adapter), so this run will fail: choose wasm under Execution provider, or tick "allow fallback to wasm".',
    );
    expect(routeChoiceNote({ model, ep: 'webgpu', allowFallback: null }, catalog.models, none)?.line).toMatch(
      /will fail: choose wasm under Execution provider\.$/,
    );
    expect(routeChoiceNote({ model, ep: 'webgpu', allowFallback: true }, catalog.models, none)?.line).toMatch(
      /will fall back to wasm/,
    );
    expect(routeChoiceNote({ model, ep: 'wasm', allowFallback: false }, catalog.models, none)).toBeNull();
  });
  it('a WebLLM model on an adapter without shader-f16 (SwiftShader): names a model the list has', () => {
    const note = routeChoiceNote({ model: webllm, ep: 'webgpu', allowFallback: null }, generate, gpu({ features: [] }));
    const named = /for example (\S+) on wasm\.$/.exec(note?.line ?? '')?.[1];
    expect(note?.line).toMatch(/^Model: this WebGPU adapter lacks shader-f16/);
    expect(generate.map((m) => m.id)).toContain(named);
    expect(alternative(generate, webllm, gpu({ features: [] }).webgpu)).toBe(`, for example ${named} on wasm`);
  });
  it('a software adapter: warns that its timings say nothing about a GPU', () => {
    const model = catalog.models.find((m) => m.id === catalog.default_model)!;
    const note = routeChoiceNote({ model, ep: 'webgpu', allowFallback: false }, [], gpu({ is_fallback_adapter: true }));
    expect(note).toMatchObject({ blocks: false, line: expect.stringContaining('software (fallback) adapter') });
    expect(routeChoiceNote({ model, ep: 'webgpu', allowFallback: false }, [], gpu({}))).toBeNull();
  });
  it("the failure advice under the gate's reason names the panel's alternative", () => {
    const reason =
      'WebLLM capability gate: the WebGPU adapter lacks shader-f16 (the q4f16_1 quantisation computes in float16); nothing was downloaded';
    expect(failureAdvice(reason, 'generation', ', for example tfjs-tiny-qwen3 on wasm')).toBe(
      "This device's WebGPU adapter lacks a feature the model needs: choose another model under Model, for example tfjs-tiny-qwen3 on wasm.",
    );
  });
});
