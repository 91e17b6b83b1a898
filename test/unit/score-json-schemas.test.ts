import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { jsonSchemaSources, renderJsonSchemaFiles } from '../../src/core/validation/json-schemas.ts';
import { runCli, tempDirWith } from './cli-harness.ts';

const schemasDir = fileURLToPath(new URL('../../docs/schemas/', import.meta.url));

describe('docs/schemas', () => {
  it.each(renderJsonSchemaFiles().map(({ fileName, text }) => [fileName, text]))(
    '%s equals the schema generated from its zod source (regenerate with `npx drb schemas`)',
    (fileName, text) => {
      expect(readFileSync(`${schemasDir}${fileName}`, 'utf8')).toBe(text);
    },
  );

  it('holds no schema file that no zod source generates', () => {
    const registered = new Set(jsonSchemaSources.map((source) => source.fileName));
    const committed = readdirSync(schemasDir).filter((name) => name.endsWith('.schema.json'));
    expect(committed.filter((name) => !registered.has(name))).toEqual([]);
  });

  it('publishes the scorer artifacts with their version strings', () => {
    const score = JSON.parse(readFileSync(`${schemasDir}score-report.schema.json`, 'utf8'));
    expect(score.properties.schema.const).toBe('drb.score-report.v2');
    expect(score.additionalProperties).toBe(false);
    const compare = JSON.parse(readFileSync(`${schemasDir}compare-report.schema.json`, 'utf8'));
    expect(compare.properties.schema.const).toBe('drb.compare-report.v1');
  });
});

describe('drb schemas', () => {
  it('writes every registered schema, then --check passes; a stale file makes --check exit 1 naming it', async () => {
    const dir = tempDirWith({});
    const out = join(dir, 'schemas');
    const written = await runCli(['schemas', '--out', out]);
    expect(written.code).toBe(0);
    expect(readdirSync(out).sort()).toEqual(jsonSchemaSources.map((source) => source.fileName).sort());
    expect((await runCli(['schemas', '--check', '--out', out])).code).toBe(0);
    writeFileSync(join(out, 'score-report.schema.json'), '{}\n');
    const stale = await runCli(['schemas', '--check', '--out', out]);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toBe(
      `${join(out, 'score-report.schema.json')}: $: missing or stale; run \`npx drb schemas\`\n`,
    );
  });
});
