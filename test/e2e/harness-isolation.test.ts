/**
 * The e2e files share their worker's Chromium (launchTestChromium, page-harness.ts). What one file leaves must not
 * reach the next: a file that happens to get the same port, so the same origin, must find nothing stored and nothing
 * cached. This file plays both files on one server: it stores and caches, closes its handle, and looks again through
 * a new one. It opens a JSON file of the build (no page code runs, so nothing but the test writes to storage).
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startStaticServer, type StaticServer } from '../../src/node/static-server.ts';
import { launchTestChromium } from './page-harness.ts';

const FILE = '/models/ort-tiny-xenc/model.onnx';

let server: StaticServer;
const answered: Array<{ path: string; status: number }> = [];
beforeAll(async () => {
  server = await startStaticServer({
    dir: inject('distDir'),
    onRequest: (_method, path, status) => answered.push({ path, status }),
  });
});
afterAll(async () => {
  await server?.close();
});

/** What the origin holds: local storage keys, IndexedDB database names, Cache Storage names. */
async function readStored(): Promise<{ local: string[]; indexedDb: Array<string | undefined>; caches: string[] }> {
  return {
    local: Object.keys(localStorage),
    indexedDb: (await indexedDB.databases()).map((d) => d.name),
    caches: await caches.keys(),
  };
}

/** Fetches FILE from the page (the HTTP cache answers it when it can) and returns the status the server sent. */
async function fetchStatus(page: import('playwright-core').Page): Promise<number> {
  const before = answered.length;
  await page.evaluate((file) => fetch(file).then((r) => r.arrayBuffer()), FILE);
  const mine = answered.slice(before).filter((a) => a.path === FILE);
  expect(mine).toHaveLength(1);
  return mine[0].status;
}

describe('a file closing its browser handle', () => {
  it('leaves the next file on the same origin nothing stored and nothing cached', async () => {
    const first = await launchTestChromium();
    const page = await first.context.newPage();
    await page.goto(`${server.url}protocols/ort-tiny-xenc-wasm.json`);
    await page.evaluate(async () => {
      localStorage.setItem('left-behind', '1');
      await new Promise<void>((resolve, reject) => {
        const request = indexedDB.open('left-behind-db', 1);
        request.onupgradeneeded = () => request.result.createObjectStore('s');
        request.onsuccess = () => {
          request.result.close();
          resolve();
        };
        request.onerror = () => reject(request.error);
      });
      await (await caches.open('left-behind-cache')).put('/left-behind', new Response('x'));
    });
    // The checks below would pass vacuously if nothing had been stored or cached.
    expect(await page.evaluate(readStored)).toEqual({
      local: ['left-behind'],
      indexedDb: ['left-behind-db'],
      caches: ['left-behind-cache'],
    });
    expect(await fetchStatus(page)).toBe(200);
    expect(await fetchStatus(page), 'the HTTP cache revalidates what it holds').toBe(304);
    await first.close();
    expect(page.isClosed()).toBe(true);

    const next = await launchTestChromium();
    try {
      const again = await next.context.newPage();
      await again.goto(`${server.url}protocols/ort-tiny-xenc-wasm.json`);
      expect(await again.evaluate(readStored)).toEqual({ local: [], indexedDb: [], caches: [] });
      expect(await fetchStatus(again), 'nothing left in the HTTP cache to revalidate').toBe(200);
    } finally {
      await next.close();
    }
  });
});
