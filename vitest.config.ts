import { defineConfig } from 'vitest/config';

// Two projects: pure logic and CLI tests in Node, and end-to-end tests that drive a real browser.
// The e2e project runs its files one at a time: each file starts a browser. `npm test` (scripts/test.mjs) runs the
// unit project and two e2e lanes side by side.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          environment: 'node',
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
          testTimeout: 180_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
