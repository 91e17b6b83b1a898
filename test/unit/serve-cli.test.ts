import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';

const BIN = fileURLToPath(new URL('../../bin/drb.mjs', import.meta.url));

describe('drb serve', () => {
  it('refuses a folder without index.html and a bad port with one error line', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'drb-serve-empty-'));
    const errors: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((text: string) => {
      errors.push(String(text));
      return true;
    }) as typeof process.stderr.write;
    try {
      expect(await main(['serve', '--dir', dir, '--port', '0'])).toBe(2);
      expect(await main(['serve', '--dir', dir, '--port', 'x'])).toBe(2);
    } finally {
      process.stderr.write = write;
      await rm(dir, { recursive: true, force: true });
    }
    expect(errors).toEqual([
      `error: ${dir}: no index.html: build the page first (npm run build, or drb serve --build)\n`,
      "error: --port: 'x': expected an integer from 0 to 65535\n",
    ]);
  });

  it('the real binary serves a folder on a free port, prints its URL, and stops on SIGTERM', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'drb-serve-'));
    await writeFile(join(dir, 'index.html'), '<!doctype html><title>served</title>');
    const child = spawn(process.execPath, [BIN, 'serve', '--dir', dir, '--port', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (chunk) => {
          out += chunk;
          const match = /at (http:\/\/127\.0\.0\.1:\d+\/)/.exec(out);
          if (match) resolve(match[1]);
        });
        child.once('exit', (code) => reject(new Error(`drb serve exited with ${code}`)));
      });
      const response = await fetch(url);
      expect(response.status).toBe(200);
      expect(await response.text()).toContain('served');
      expect(response.headers.get('cross-origin-embedder-policy')).toBe('require-corp');
      expect((await fetch(`${url}nope.wasm`)).status).toBe(404);
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await rm(dir, { recursive: true, force: true });
    }
  });
});
