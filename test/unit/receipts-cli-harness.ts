/** Runs the real CLI entry (`main` from src/cli/main.ts) in-process and captures what it prints. */
import { vi } from 'vitest';
import { main } from '../../src/cli/main.ts';

/** The exit code and the captured stdout/stderr of one CLI invocation. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Calls `main(args)` with process.stdout/stderr writes captured.
 * @param args the arguments after `drb`
 */
export async function runCli(args: string[]): Promise<CliRun> {
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
    const code = await main(args);
    return { code, stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}
