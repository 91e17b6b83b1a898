import { readFileSync } from 'node:fs';

/** The package version, read from package.json so the CLI and the page report the same number. */
export function toolVersion(): string {
  const url = new URL('../../package.json', import.meta.url);
  return (JSON.parse(readFileSync(url, 'utf8')) as { version: string }).version;
}
