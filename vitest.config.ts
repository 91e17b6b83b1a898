import { defineConfig } from 'vitest/config';

// Two projects: pure logic and CLI tests in Node, and end-to-end tests that drive a real browser.
// The e2e project runs its files one at a time, each with a server of its own, in browsers the files of a worker share
// (test/e2e/page-harness.ts). `npm test` (scripts/test.mjs) runs the unit project and two e2e lanes side by side.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          environment: 'node',
          // One module graph for all the unit files of a worker instead of a fresh one per file: each file still runs
          // its own top level, hooks and tests, but the modules they import (zod schemas, the scorer, transformers.js)
          // load once. Measured on the idle 2-core machine: 53 s against 105 s, 62 against 102 CPU seconds.
          isolate: false,
          // Generous: `npm test` runs the unit files beside two browser lanes on a 2-core machine (scripts/test.mjs),
          // where a CLI test that spawns node and bundles can take tens of seconds. Speed is measured in `npm run bench`.
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['test/e2e/global-setup.ts'],
          fileParallelism: false,
          // As for the unit files: playwright-core and the harness load once per lane, not once per file. Measured: 5
          // against 14 CPU seconds of vitest for six small files. It is also what lets the files of a lane share their
          // Chromium (launchTestChromium, test/e2e/page-harness.ts): one worker runs them all, one after another.
          isolate: false,
          testTimeout: 180_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
