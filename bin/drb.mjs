#!/usr/bin/env node
// The `drb` binary. In a checkout it runs a JavaScript bundle of the CLI, built on first use into
// node_modules/.cache/drb-cli and rebuilt whenever a source file changes (see cli-bundle.mjs), because start-up
// counts in `drb score`'s throughput; when no bundle can be built it registers tsx and runs the TypeScript sources
// directly. Either way a clean clone needs no build step. An installed copy of a packed tarball (`npm pack`, then
// `npm install -g` of it) has no sources: it runs the bundle `npm pack` built into dist-cli/ (scripts/pack-cli.mjs).
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { isCheckout, loadCliBundle, PACKED_ENTRY } from './cli-bundle.mjs';

let main;
if (isCheckout()) {
  main = await loadCliBundle();
  if (main === null) {
    const { register } = await import('tsx/esm/api');
    register();
    ({ main } = await import('../src/cli/main.ts'));
  }
} else if (existsSync(PACKED_ENTRY)) {
  ({ main } = await import(pathToFileURL(PACKED_ENTRY).href));
} else {
  process.stderr.write(
    `error: ${PACKED_ENTRY}: missing, so this copy of drb cannot run: make the tarball with \`npm pack\` in a ` +
      'checkout and install that tarball again\n',
  );
  process.exit(2);
}
process.exitCode = await main(process.argv.slice(2));
