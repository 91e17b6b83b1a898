/** Runs the real CLI entry (`main` from src/cli/main.ts) in-process and captures what it prints; plus a temp-dir helper. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { vi } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { testTempDir } from '../temp-dir.ts';

/** What one in-process CLI run produced. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `drb <argv>` in-process through main(), capturing stdout and stderr. */
export async function runCli(argv: string[]): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stdout += String(chunk);
    return true;
  });
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  });
  try {
    const code = await main(argv);
    return { code, stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

/** A fresh temporary directory with `files` written into it (strings as UTF-8, values as JSON). */
export function tempDirWith(files: Record<string, string | Uint8Array | object>): string {
  const dir = testTempDir('drb-cli-');
  for (const [name, content] of Object.entries(files)) {
    const data = typeof content === 'string' || content instanceof Uint8Array ? content : JSON.stringify(content);
    writeFileSync(join(dir, name), data);
  }
  return dir;
}
