/**
 * No string field in any published artifact schema accepts "anything of any length": every string in every JSON
 * Schema generated from the zod sources has a length bound, a bounded pattern, an enum/const or a date-time format.
 * A new schema or field is checked here the moment it is registered in json-schemas.ts.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { jsonSchemaSources } from '../../src/core/validation/json-schemas.ts';

type Node = Record<string, unknown>;

/** Every string-typed node with its JSON path. */
function stringNodes(node: unknown, path: string, out: Array<{ path: string; node: Node }>): void {
  if (Array.isArray(node)) {
    node.forEach((child, i) => stringNodes(child, `${path}[${i}]`, out));
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const n = node as Node;
  const types = Array.isArray(n.type) ? n.type : [n.type];
  if (types.includes('string')) out.push({ path, node: n });
  for (const [key, child] of Object.entries(n)) stringNodes(child, `${path}/${key}`, out);
}

/** True when a regex can only match strings of bounded length (no `*`, `+` or open `{n,}`). */
function boundedPattern(pattern: string): boolean {
  const outsideClasses = pattern.replace(/\[(?:\\.|[^\]\\])*\]/g, 'X');
  return !/(?<!\\)[*+]|\{\d+,\}/.test(outsideClasses);
}

// Datasets a user brings (items, predictions, candidates) hold their own texts of any length; the scorer bounds
// them by file size when it reads them. Every artifact drb writes, and every manifest it reads, is bounded per field.
const DATASETS = new Set([
  'items-generic.schema.json',
  'items-ajimee.schema.json',
  'predictions.schema.json',
  'candidates.schema.json',
]);

describe('string bounds in every artifact schema', () => {
  it.each(jsonSchemaSources.filter((s) => !DATASETS.has(s.fileName)).map((s) => [s.fileName, s.schema] as const))(
    '%s',
    (_name, schema) => {
      const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input' });
      const nodes: Array<{ path: string; node: Node }> = [];
      stringNodes(json, '#', nodes);
      const unbounded = nodes
        .filter(({ node }) => {
          if (typeof node.maxLength === 'number' || node.enum !== undefined || node.const !== undefined) return false;
          if (node.format === 'date-time') return false;
          const patterns = [node.pattern, ...((node.allOf as Node[] | undefined) ?? []).map((p) => p.pattern)].filter(
            (p): p is string => typeof p === 'string',
          );
          return !patterns.some(boundedPattern);
        })
        .map(({ path }) => path);
      expect(unbounded).toEqual([]);
    },
  );
});
