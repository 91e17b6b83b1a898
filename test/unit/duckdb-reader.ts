/**
 * DuckDB (@duckdb/node-api, a dev dependency) as the independent reader of what `drb receipts export` writes: the
 * tests read the Parquet, CSV and JSONL files back with it, never with the writer's own library.
 */
import { DuckDBInstance } from '@duckdb/node-api';

/** One result row with DuckDB's values as JSON-friendly values (BIGINT as a string, TIMESTAMP as text). */
export type DuckRow = Record<string, unknown>;

let instance: Promise<DuckDBInstance> | null = null;

/**
 * Runs `sql` in an in-memory DuckDB and returns its rows (getRowObjectsJson: BIGINT and HUGEINT as decimal strings,
 * timestamps as DuckDB's text form).
 * @param sql the query
 */
export async function duck(sql: string): Promise<DuckRow[]> {
  instance ??= DuckDBInstance.create(':memory:');
  const connection = await (await instance).connect();
  try {
    const reader = await connection.runAndReadAll(sql);
    return reader.getRowObjectsJson() as DuckRow[];
  } finally {
    connection.closeSync();
  }
}

/** `path` as a single-quoted SQL string literal. */
export function sqlPath(path: string): string {
  return `'${path.replace(/'/g, "''")}'`;
}
