#!/usr/bin/env node
// The `drb` binary. It runs a JavaScript bundle of the CLI, built on first use into node_modules/.cache/drb-cli
// and rebuilt whenever a source file changes (see cli-bundle.mjs), because start-up counts in `drb score`'s
// throughput; when no bundle can be built it registers tsx and runs the TypeScript sources directly. Either way a
// clean clone needs no build step.
import { loadCliBundle } from './cli-bundle.mjs';

let main = await loadCliBundle();
if (main === null) {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../src/cli/main.ts'));
}
process.exitCode = await main(process.argv.slice(2));
