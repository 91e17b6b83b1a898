/**
 * The panel skeleton stays one skeleton: no component (no file) in src/ui/ grows past 200 lines, and what every
 * panel repeats (claiming the page's one run, the automation state of a run, storing a result before it is shown) is
 * written once, in src/ui/panel-run.ts and src/page/stored-session.ts.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const UI = join(import.meta.dirname, '..', '..', 'src', 'ui');
const MAX_COMPONENT_LINES = 200;

/** Every source file of src/ui/ with its text. */
function uiFiles(): Array<{ name: string; text: string }> {
  return readdirSync(UI)
    .filter((name) => /\.tsx?$/.test(name))
    .map((name) => ({ name, text: readFileSync(join(UI, name), 'utf8') }));
}

/** The files of src/ui/ whose text matches `pattern`. */
function filesMatching(pattern: RegExp): string[] {
  return uiFiles()
    .filter((file) => pattern.test(file.text))
    .map((file) => file.name)
    .sort();
}

describe('src/ui/', () => {
  it(`holds no component (nor hook or helper module) over ${MAX_COMPONENT_LINES} lines`, () => {
    const files = uiFiles();
    expect(files.filter((file) => file.name.endsWith('.tsx')).length).toBeGreaterThan(10);
    const long = files
      .map((file) => ({ name: file.name, lines: file.text.split('\n').length - (file.text.endsWith('\n') ? 1 : 0) }))
      .filter((file) => file.lines > MAX_COMPONENT_LINES);
    expect(long).toEqual([]);
  });

  it('claims the page for a run and sets a run going in the automation state in one place', () => {
    expect(filesMatching(/pageRuns\.claim\(/)).toEqual(['panel-run.ts']);
    expect(filesMatching(/setDrbState\(\s*'running'\s*\)/)).toEqual(['panel-run.ts']);
    // The autorun effect: one `autorun()` call that turns a run's end into done / failed.
    expect(filesMatching(/setDrbState\(ok \? 'done' : 'failed'\)/)).toEqual(['panel-run.ts']);
  });

  it('stores every result on the device before it is shown, through one helper', () => {
    // Panels never call the stored session's `offer` themselves: storeThenShow stores, then shows.
    expect(filesMatching(/storedSession\.offer/)).toEqual([]);
    expect(filesMatching(/storeThenShow\(/).length).toBeGreaterThan(0);
    expect(filesMatching(/before it is shown/)).toEqual([]);
  });
});
