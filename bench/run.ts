/**
 * `npm run bench`: runs every `bench/*.bench.ts` in its own Node process, one after another (each prints its own
 * results), so one benchmark's heap never inflates another's peak-memory figure. Pass names to run a subset:
 * `npm run bench -- score`.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('.', import.meta.url));
const wanted = process.argv.slice(2);
const files = readdirSync(dir)
  .filter((name) => name.endsWith('.bench.ts'))
  .filter((name) => wanted.length === 0 || wanted.some((w) => name.startsWith(w)))
  .sort();
if (files.length === 0) {
  console.error(`error: no benchmark matches ${wanted.join(', ') || '(any)'} in ${dir}`);
  process.exit(2);
}
let failed = 0;
for (const file of files) {
  console.log(`\n=== ${file} ===`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', '--expose-gc', `${dir}${file}`], { stdio: 'inherit' });
  if (result.status !== 0) failed++;
}
process.exit(failed === 0 ? 0 : 1);
