/**
 * `drb receipts export --format parquet|csv|jsonl --out DIR --license ID PATH...`: validated receipts and bundles
 * into the dataset's flat tables (src/core/dataset/dataset-tables.ts) and a dataset card (dataset.json).
 *
 * Every input goes through the receipt tools' one reader and every check `drb receipts validate` runs (the same
 * `validateReceipt`, the same receipt-id ledger). A refused file is named with its problems and nothing is written,
 * unless `--skip-invalid` is given: then what was left out is listed on stderr and in the card. Receipts stream: each
 * is read, checked and turned into rows that go into a bounded buffer per table, flushed as a Parquet row group (or
 * CSV/JSONL lines) when full, so memory stays bounded whatever the number of receipts. Tables are written under
 * temporary names in DIR and renamed into place only when everything succeeded: a failure leaves nothing partial.
 */
import { closeSync, existsSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { ByteWriter, ParquetWriter } from 'hyparquet-writer';
import type { SchemaElement } from 'hyparquet';
import { CliError } from './cli-error.ts';
import { fsProblem, makeOutputDir } from './output-files.ts';
import { collectJsonFiles, displayPath, guardOverwrite, readInputDocuments, unreadLines } from './receipt-files.ts';
import { toolVersion } from './tool-version.ts';
import {
  DATASET_CARD_SCHEMA,
  DatasetCard,
  DatasetFormat,
  formatNotes,
  tableEntries,
  type InputUse,
} from '../core/dataset/dataset-card.ts';
import {
  comparisonRoundRows,
  generationSampleRows,
  receiptRow,
  RowKeys,
  sampleRows,
  TABLE_COLUMNS,
  TABLE_NAMES,
  type ColumnSpec,
  type Row,
  type TableName,
  type ValidReceipt,
} from '../core/dataset/dataset-tables.ts';
import { duplicateMessage, ReceiptIdLedger } from '../core/evidence/receipt-ids.ts';
import { RECEIPT_BUNDLE_SCHEMA } from '../core/field/receipt-bundle.ts';
import { validateReceipt } from '../core/validation/validate-receipt.ts';
import { boundLine } from '../core/text/bounded-text.ts';

/** Rows buffered per table before a Parquet row group (or a batch of lines) is written. */
const ROWS_PER_GROUP: Readonly<Record<TableName, number>> = {
  receipts: 5_000,
  samples: 50_000,
  generation_samples: 50_000,
  comparison_rounds: 50_000,
};

/** Bytes of text gathered before CSV and JSONL lines are written. */
const TEXT_CHUNK_CHARS = 1 << 20;

/** A table being written: rows go in, `close` finishes the file, `abort` leaves nothing. */
interface TableSink {
  add(row: Row): void;
  close(): void;
  abort(): void;
  readonly rows: number;
  readonly temp: string;
}

const PARQUET_TYPES: Record<ColumnSpec['type'], Omit<SchemaElement, 'name'>> = {
  string: { type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' },
  int64: { type: 'INT64', repetition_type: 'OPTIONAL' },
  double: { type: 'DOUBLE', repetition_type: 'OPTIONAL' },
  boolean: { type: 'BOOLEAN', repetition_type: 'OPTIONAL' },
  timestamp: {
    type: 'INT64',
    repetition_type: 'OPTIONAL',
    logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' },
  },
};

/** A hyparquet-writer Writer that appends to an open file, flushing its buffer every megabyte and per row group. */
function fdWriter(fd: number): ByteWriter {
  const writer = new ByteWriter(1 << 20);
  const flush = () => {
    if (writer.index > 0) writeSync(fd, new Uint8Array(writer.buffer, 0, writer.index));
    writer.index = 0;
  };
  const grow = writer.ensure.bind(writer);
  writer.ensure = (size: number) => {
    if (writer.index > 1 << 20) flush();
    grow(size);
  };
  Object.assign(writer, { flush, finish: flush });
  return writer;
}

function openTemp(path: string): number {
  try {
    return openSync(path, 'wx');
  } catch (error) {
    throw new CliError(`--out: cannot write ${path}: ${fsProblem(error)}`, 1);
  }
}

/** Parquet: column buffers flushed as one SNAPPY row group each `ROWS_PER_GROUP` rows. */
function parquetSink(temp: string, columns: readonly ColumnSpec[], groupRows: number, createdBy: string): TableSink {
  const fd = openTemp(temp);
  const schema: SchemaElement[] = [
    { name: 'root', num_children: columns.length },
    ...columns.map((c) => ({ name: c.name, ...PARQUET_TYPES[c.type] }) as SchemaElement),
  ];
  const writer = new ParquetWriter({ writer: fdWriter(fd), schema, codec: 'SNAPPY', createdBy });
  let buffers: unknown[][] = columns.map(() => []);
  let buffered = 0;
  let rows = 0;
  const flush = () => {
    if (buffered === 0) return;
    writer.write({
      columnData: columns.map((c, i) => ({ name: c.name, data: buffers[i] as never })),
      rowGroupSize: buffered,
    });
    buffers = columns.map(() => []);
    buffered = 0;
  };
  return {
    temp,
    get rows() {
      return rows;
    },
    add(row) {
      for (let i = 0; i < columns.length; i++) {
        const c = columns[i];
        const v = row[c.name] ?? null;
        buffers[i].push(
          v === null
            ? null
            : c.type === 'int64'
              ? BigInt(v as number)
              : c.type === 'timestamp'
                ? // The column's physical value (ms since the epoch), as hyparquet-writer would make of a Date.
                  BigInt(Date.parse(v as string))
                : v,
        );
      }
      buffered++;
      rows++;
      if (buffered >= groupRows) flush();
    },
    close() {
      flush();
      writer.finish();
      closeSync(fd);
    },
    abort() {
      closeSync(fd);
      rmSync(temp, { force: true });
    },
  };
}

/** A string that a spreadsheet would run as a formula gets a leading apostrophe (OWASP CSV injection). */
const FORMULA_START = /^[=+\-@\t\r]/;

function csvCell(value: unknown, type: ColumnSpec['type']): string {
  if (value === null || value === undefined) return '';
  if (type === 'string') {
    const text = String(value);
    return `"${(FORMULA_START.test(text) ? `'${text}` : text).replace(/"/g, '""')}"`;
  }
  return String(value);
}

/** CSV or JSONL: lines gathered into ~1 MB of text, then written. */
function textSink(temp: string, columns: readonly ColumnSpec[], format: 'csv' | 'jsonl'): TableSink {
  const fd = openTemp(temp);
  let text = format === 'csv' ? `${columns.map((c) => c.name).join(',')}\n` : '';
  let rows = 0;
  const flush = () => {
    if (text.length > 0) writeSync(fd, text);
    text = '';
  };
  return {
    temp,
    get rows() {
      return rows;
    },
    add(row) {
      if (format === 'csv') text += `${columns.map((c) => csvCell(row[c.name], c.type)).join(',')}\n`;
      else {
        const ordered: Row = {};
        for (const c of columns) ordered[c.name] = row[c.name] ?? null;
        text += `${JSON.stringify(ordered)}\n`;
      }
      rows++;
      if (text.length >= TEXT_CHUNK_CHARS) flush();
    },
    close() {
      flush();
      closeSync(fd);
    },
    abort() {
      closeSync(fd);
      rmSync(temp, { force: true });
    },
  };
}

/** A value a table column cannot hold exactly (an integer beyond 2^53), named: the receipt is refused then. */
function unrepresentable(table: TableName, row: Row): string | null {
  for (const name of INT64_COLUMNS[table]) {
    const v = row[name];
    if (v !== null && v !== undefined && !Number.isSafeInteger(v)) {
      return `${name}: ${String(v)} is outside the integers the dataset stores exactly (at most 2^53 - 1)`;
    }
  }
  return null;
}

/** Each table's int64 columns: the only ones `unrepresentable` checks (asked of every row). */
const INT64_COLUMNS = Object.fromEntries(
  Object.entries(TABLE_COLUMNS).map(([table, columns]) => [
    table,
    columns.filter((c) => c.type === 'int64').map((c) => c.name),
  ]),
) as Record<TableName, string[]>;

/** What `exportDataset` did. */
export interface ExportResult {
  card: DatasetCard;
  files: string[];
  /** `<file>: <field>: <problem>` for every input left out with --skip-invalid. */
  skipped: string[];
  /** Byte-identical copies (counted once) and artifacts that are not receipts. */
  notes: string[];
}

/** Options of `exportDataset`. */
export interface ExportOptions {
  format: DatasetFormat;
  outDir: string;
  license: string;
  skipInvalid: boolean;
  progress?: (done: number, total: number) => void;
}

/** Whether `content` is a dataset card this command wrote (so the folder's tables may be replaced). */
export function isDatasetCard(content: string): boolean {
  try {
    return (JSON.parse(content) as { schema?: unknown }).schema === DATASET_CARD_SCHEMA;
  } catch {
    return false;
  }
}

/**
 * Exports the receipts in `paths` into `options.outDir` (see the module comment).
 * @param paths receipt files, bundles or folders
 * @param options format, output folder, licence, --skip-invalid, progress
 * @throws CliError exit 1 naming every refused file (nothing written), exit 2 for bad options, no valid receipt, or
 *   an output folder holding files this command did not write
 */
export async function exportDataset(paths: readonly string[], options: ExportOptions): Promise<ExportResult> {
  const license = DatasetCard.shape.license.safeParse(options.license);
  if (!license.success)
    throw new CliError(
      `--license: ${license.error.issues[0].message} (an SPDX id such as CC-BY-4.0, or one line of at most 256 characters)`,
    );
  const outDir = options.outDir;
  const found = collectJsonFiles(paths, [resolve(outDir)]);
  const { files } = found;
  // Symbolic links and special files inside a folder are named and refused, never opened (receipt-files.ts).
  const unread = unreadLines(found);
  const cardPath = join(outDir, 'dataset.json');
  const tablePaths = TABLE_NAMES.map((name) => join(outDir, `${name}.${options.format}`));
  guardOverwrite(cardPath, isDatasetCard, `a ${DATASET_CARD_SCHEMA} card`);
  if (!existsSync(cardPath)) {
    for (const path of tablePaths) {
      if (existsSync(path))
        throw new CliError(
          `${path}: exists and no dataset.json of drb receipts export is beside it; refusing to overwrite it (choose another --out)`,
        );
    }
  }
  makeOutputDir(outDir, '--out');
  const createdBy = `device-receipts-bench ${toolVersion()} (drb receipts export, hyparquet-writer)`;
  const sinks = {} as Record<TableName, TableSink>;
  try {
    for (const name of TABLE_NAMES) {
      const temp = join(outDir, `.drb-export-${process.pid}-${name}.tmp`);
      sinks[name] =
        options.format === 'parquet'
          ? parquetSink(temp, TABLE_COLUMNS[name], ROWS_PER_GROUP[name], createdBy)
          : textSink(temp, TABLE_COLUMNS[name], options.format);
    }
  } catch (error) {
    for (const sink of Object.values(sinks)) sink.abort();
    throw error;
  }
  const abortAll = () => {
    for (const sink of Object.values(sinks)) sink.abort();
  };

  const refused: string[] = [];
  const skippedCard: DatasetCard['skipped'] = [];
  const notes: string[] = [];
  const inputs: DatasetCard['inputs'] = unread.map(({ shown }) => ({
    file: shown,
    bytes: 0,
    sha256: null,
    taken_as: 'skipped-invalid' as InputUse,
    receipts: 0,
  }));
  const counts = { device: 0, generation: 0, suite: 0, comparison: 0, copies: 0, not_receipts: 0 };
  const refuse = (file: string, lines: string[]) => {
    refused.push(...lines);
    skippedCard.push({ file, problem: lines[0].slice(file.length + 2) });
  };
  for (const { shown, problem } of unread) refuse(shown, [`${shown}: (document): ${problem}`]);
  const ledger = new ReceiptIdLedger();
  const keys = new RowKeys();
  let done = 0;
  try {
    for (const doc of readInputDocuments(files)) {
      // A bundle's receipts follow the bundle's own document: they count toward the bundle's input entry.
      const entry =
        doc.bundle === undefined
          ? { file: doc.shown, bytes: doc.bytes, sha256: doc.sha256, taken_as: 'receipt' as InputUse, receipts: 0 }
          : inputs[inputs.length - 1];
      if (doc.bundle === undefined) {
        inputs.push(entry);
        options.progress?.(++done, files.length);
      }
      const skip = (lines: string[]) => {
        refuse(doc.shown, lines);
        if (doc.bundle === undefined) entry.taken_as = 'skipped-invalid';
      };
      if (!doc.parsed.ok) {
        skip([`${doc.shown}: (document): ${doc.parsed.message}`]);
        continue;
      }
      const result = validateReceipt(doc.parsed.value);
      if (result.problems.length > 0) {
        skip(result.problems.map((p) => `${doc.shown}: ${p.path || '(document)'}: ${p.message}`));
        continue;
      }
      if (result.kind === 'artifact' || result.kind === 'not-a-receipt') {
        if (result.kind === 'artifact' && result.schema === RECEIPT_BUNDLE_SCHEMA) entry.taken_as = 'bundle';
        else {
          entry.taken_as = 'not-a-receipt';
          counts.not_receipts++;
          notes.push(
            `${doc.shown}: not a receipt (${result.kind === 'artifact' ? result.schema : 'no schema'}): not exported`,
          );
        }
        continue;
      }
      if (result.receipt === null) continue; // unreachable: a receipt without problems is set
      const claim = ledger.claim(result.receipt.receipt_id, { file: doc.shown, fingerprint: doc.sha256 });
      if (claim.kind === 'identical') {
        counts.copies++;
        if (doc.bundle === undefined) entry.taken_as = 'copy';
        notes.push(`${doc.shown}: receipt_id: ${duplicateMessage(result.receipt.receipt_id, claim)}`);
        continue;
      }
      if (claim.kind === 'conflict') {
        skip([`${doc.shown}: receipt_id: ${duplicateMessage(result.receipt.receipt_id, claim)}`]);
        continue;
      }
      const kind =
        result.kind === 'receipt'
          ? 'device'
          : result.kind === 'generation-receipt'
            ? 'generation'
            : result.kind === 'suite-receipt'
              ? 'suite'
              : 'comparison';
      const valid = { kind, receipt: result.receipt } as ValidReceipt;
      const rowKeys = await keys.of(valid);
      const tables: Array<[TableName, Row[]]> = [
        ['receipts', [receiptRow(valid, { file: doc.shown, sha256: doc.sha256 }, rowKeys)]],
        ['samples', sampleRows(valid, rowKeys.target)],
        ['generation_samples', generationSampleRows(valid, rowKeys.target)],
        ['comparison_rounds', comparisonRoundRows(valid)],
      ];
      const problem = tables
        .flatMap(([table, rows]) => rows.map((row) => unrepresentable(table, row)))
        .find((p) => p !== null);
      if (problem) {
        skip([`${doc.shown}: ${problem}`]);
        continue;
      }
      for (const [table, rows] of tables) for (const row of rows) sinks[table].add(row);
      counts[kind]++;
      entry.receipts++;
    }
  } catch (error) {
    abortAll();
    throw error;
  }
  const receipts = counts.device + counts.generation + counts.suite + counts.comparison;
  if (refused.length > 0 && !options.skipInvalid) {
    abortAll();
    throw new CliError(
      [
        ...refused,
        `${skippedCard.length} input(s) refused; nothing written (pass --skip-invalid to export the rest and list what was left out)`,
      ].join('\nerror: '),
      1,
    );
  }
  if (receipts === 0) {
    abortAll();
    throw new CliError(
      `${paths.map((p) => displayPath(p)).join(', ')}: no valid receipt among ${files.length + unread.length} file(s) (run drb receipts validate); nothing written`,
    );
  }
  try {
    for (const sink of Object.values(sinks)) sink.close();
  } catch (error) {
    abortAll();
    throw new CliError(`--out ${outDir}: cannot write the tables: ${fsProblem(error)}`, 1);
  }
  const rows = Object.fromEntries(TABLE_NAMES.map((name) => [name, sinks[name].rows])) as Record<TableName, number>;
  const card: DatasetCard = DatasetCard.parse({
    schema: DATASET_CARD_SCHEMA,
    dataset_version: 'drb.dataset.v1',
    generator: { name: 'drb receipts export', drb_version: toolVersion() },
    license: license.data,
    format: options.format,
    compression: options.format === 'parquet' ? 'SNAPPY' : 'none',
    tables: tableEntries(options.format, rows),
    counts: {
      input_files: files.length + unread.length,
      receipts,
      device_receipts: counts.device,
      generation_receipts: counts.generation,
      suite_receipts: counts.suite,
      comparison_receipts: counts.comparison,
      copies: counts.copies,
      not_receipts: counts.not_receipts,
      skipped_invalid: skippedCard.length,
    },
    // File names are the file system's, not ours: one printable line each in the card (the tables keep them as data).
    inputs: [...inputs]
      .map((i) => ({ ...i, file: boundLine(i.file, 4096) }))
      .sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0)),
    skipped: skippedCard.map((s) => ({ file: boundLine(s.file, 4096), problem: boundLine(s.problem, 4096) })),
    notes: formatNotes(options.format),
  });
  const cardTemp = join(outDir, `.drb-export-${process.pid}-card.tmp`);
  const moves: Array<[string, string]> = [
    ...TABLE_NAMES.map((name, i) => [sinks[name].temp, tablePaths[i]] as [string, string]),
    [cardTemp, cardPath],
  ];
  let renamed = 0;
  try {
    const fd = openTemp(cardTemp);
    try {
      writeSync(fd, `${JSON.stringify(card, null, 2)}\n`);
    } finally {
      closeSync(fd);
    }
    for (; renamed < moves.length; renamed++) renameSync(moves[renamed][0], moves[renamed][1]);
  } catch (error) {
    for (const [temp] of moves.slice(renamed)) rmSync(temp, { force: true });
    const at = renamed > 0 ? ` (${renamed} of ${moves.length} file(s) were already replaced)` : '';
    throw new CliError(`--out ${outDir}: cannot write ${moves[renamed]?.[1] ?? cardPath}: ${fsProblem(error)}${at}`, 1);
  }
  return { card, files: [...tablePaths, cardPath], skipped: options.skipInvalid ? refused : [], notes };
}

/**
 * Registers `drb receipts export` on the `receipts` command.
 * @param receipts the `drb receipts` command
 */
export function registerExport(receipts: Command): void {
  receipts
    .command('export')
    .description(
      'Export validated receipts and bundles as a dataset: receipts, samples, generation_samples and comparison_rounds tables (Parquet, CSV or JSON Lines) and a dataset.json card.',
    )
    .argument('<paths...>', 'receipt files, bundles or folders')
    .requiredOption('--out <dir>', 'output folder for the tables and dataset.json')
    .requiredOption(
      '--license <id>',
      'the licence you publish the dataset under (an SPDX id such as CC-BY-4.0), recorded in dataset.json',
    )
    .option('--format <format>', 'parquet, csv or jsonl', 'parquet')
    .option('--skip-invalid', 'export the valid receipts and list the refused files instead of writing nothing')
    .action(async (paths: string[], flags: { out: string; license: string; format: string; skipInvalid?: boolean }) => {
      const format = DatasetFormat.safeParse(flags.format);
      if (!format.success)
        throw new CliError(`--format: must be parquet, csv or jsonl, got ${JSON.stringify(flags.format.slice(0, 40))}`);
      const tty = process.stderr.isTTY === true;
      let lastShown = 0;
      const progress = tty
        ? (done: number, total: number) => {
            if (done === total || done - lastShown >= Math.max(1, Math.floor(total / 100))) {
              lastShown = done;
              process.stderr.write(`\rexport: ${done} / ${total}${done === total ? '\n' : ''}`);
            }
          }
        : undefined;
      const result = await exportDataset(paths, {
        format: format.data,
        outDir: flags.out,
        license: flags.license,
        skipInvalid: flags.skipInvalid === true,
        progress,
      });
      for (const note of result.notes) process.stderr.write(`note: ${note}\n`);
      for (const line of result.skipped) process.stderr.write(`skipped: ${line}\n`);
      const c = result.card.counts;
      const tables = result.card.tables.map((t) => `${t.name} ${t.rows}`).join(', ');
      process.stdout.write(
        `exported ${c.receipts} receipt(s) (${c.device_receipts} device, ${c.generation_receipts} generation, ${c.suite_receipts} suite, ${c.comparison_receipts} comparison)` +
          `${c.skipped_invalid > 0 ? `, ${c.skipped_invalid} input(s) skipped` : ''} as ${format.data}: ${tables} rows; ${displayPath(join(flags.out, 'dataset.json'))}\n`,
      );
    });
}
