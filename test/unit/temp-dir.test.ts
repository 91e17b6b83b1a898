/** testTempDir (test/temp-dir.ts): a test's temporary folder is gone when the test has finished, whatever it held. */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { testTempDir } from '../temp-dir.ts';

describe('testTempDir', () => {
  let made = '';
  it('makes a fresh folder under the given prefix', () => {
    made = testTempDir('drb-temp-check-');
    expect(made).toMatch(/[/\\]drb-temp-check-[^/\\]+$/);
    mkdirSync(join(made, 'nested'));
    writeFileSync(join(made, 'nested', 'file.json'), '{}');
    expect(existsSync(join(made, 'nested', 'file.json'))).toBe(true);
  });

  it('has removed it, with what it held, once that test finished', () => {
    expect(made).not.toBe('');
    expect(existsSync(made)).toBe(false);
  });
});
