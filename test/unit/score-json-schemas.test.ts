import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { jsonSchemaSources, renderJsonSchemaFiles } from '../../src/core/artifacts/json-schemas.ts';

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
