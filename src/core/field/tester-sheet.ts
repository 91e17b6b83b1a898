/**
 * The tester sheet (the session sheet) typed once: it travels in every file the page hands off, comes back with them when the tester
 * restores files after clearing the site's data, and is merged at the desk from any number of files of one device.
 * The merge takes every field the files agree on and names only the fields whose values differ (left empty for the
 * reviewer); an empty field in one file never disagrees with a filled one. Notes are not a device fact: the distinct
 * notes are kept together rather than blocking the merge. Pure.
 */
import { EMPTY_TESTER_SHEET, type TesterSheet } from './receipt-bundle.ts';

/** The sheet's fields that describe the device and its conditions (every field but `notes`). */
export type SheetField = Exclude<keyof TesterSheet, 'notes'>;

/** The device and condition fields, in the sheet's order. */
export const SHEET_FIELDS: readonly SheetField[] = (Object.keys(EMPTY_TESTER_SHEET) as Array<keyof TesterSheet>).filter(
  (k): k is SheetField => k !== 'notes',
);

/** Whether a sheet field holds nothing typed (its empty value: '', null, or `unknown` for the thermal state). */
export function isEmptyField(field: keyof TesterSheet, value: TesterSheet[keyof TesterSheet]): boolean {
  return value === null || value === '' || value === EMPTY_TESTER_SHEET[field];
}

/** What merging several sheets gives: the agreed sheet, the fields that differ, and how many sheets were read. */
export interface SheetMerge {
  /** Every field the sheets agree on (or that only one sheet filled); a differing field is left empty. */
  sheet: TesterSheet;
  /** Fields with two or more different typed values, in the sheet's order. */
  differing: SheetField[];
  /** The fields no sheet filled, in the sheet's order. */
  missing: SheetField[];
  sheets: number;
}

/**
 * Merges session sheets field by field (see the module comment). Notes: the distinct non-empty notes joined with
 * " | " (cut to the field's 1,000 characters).
 * @param sheets the sheets, in the order their files were read
 */
export function mergeTesterSheets(sheets: readonly TesterSheet[]): SheetMerge {
  const merged: Record<string, unknown> = { ...EMPTY_TESTER_SHEET };
  const differing: SheetField[] = [];
  const missing: SheetField[] = [];
  for (const field of SHEET_FIELDS) {
    const values = new Set<string>();
    let first: unknown = null;
    for (const sheet of sheets) {
      const value = sheet[field];
      if (isEmptyField(field, value)) continue;
      const key = JSON.stringify(value);
      if (values.size === 0) first = value;
      values.add(key);
    }
    if (values.size === 1) merged[field] = first;
    else if (values.size > 1) differing.push(field);
    else missing.push(field);
  }
  const notes = [...new Set(sheets.map((s) => s.notes.trim()).filter((n) => n !== ''))].join(' | ');
  merged.notes = notes.length > 1000 ? `${notes.slice(0, 999)}…` : notes;
  return { sheet: merged as TesterSheet, differing, missing, sheets: sheets.length };
}

/**
 * The sheet after files come back: the tester's current sheet keeps every field it has; an empty field takes the
 * value the restored sheets agree on. Fields the restored sheets disagree on, or that differ from the current sheet,
 * are named so the page can say so.
 * @param current the sheet on the page now
 * @param restored the sheets of the files taken back
 */
export function restoreTesterSheet(
  current: TesterSheet,
  restored: readonly TesterSheet[],
): { sheet: TesterSheet; differing: SheetField[] } {
  const merge = mergeTesterSheets(restored);
  const next: Record<string, unknown> = { ...current };
  const differing = new Set<SheetField>(merge.differing);
  for (const field of SHEET_FIELDS) {
    const had = current[field];
    const back = merge.sheet[field];
    if (isEmptyField(field, back)) continue;
    if (isEmptyField(field, had)) next[field] = back;
    else if (JSON.stringify(had) !== JSON.stringify(back)) differing.add(field);
  }
  if (current.notes.trim() === '') next.notes = merge.sheet.notes;
  return { sheet: next as TesterSheet, differing: SHEET_FIELDS.filter((f) => differing.has(f)) };
}
