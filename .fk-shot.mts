import { launchChromium } from './src/node/chromium.ts';
import { startStaticServer } from './src/node/static-server.ts';
const server = await startStaticServer({ dir: '/tmp/fk/dist' });
const b = await launchChromium();
const page = await b.context.newPage();
page.on('console', (m) => {
  if (m.type() === 'error') console.log('console error:', m.text());
});
page.on('pageerror', (e) => console.log('pageerror', e.message));
await page.setViewportSize({ width: 390, height: 844 });
await page.goto(`${server.url}?mode=protocol`);
await page.waitForFunction(() => document.documentElement.dataset.drbSession === 'ready');
await page.waitForSelector('[data-testid=protocol-next]');
await page.screenshot({ path: '/tmp/fk/p0.png', fullPage: true });
await page.click('[data-testid=protocol-next]');
await page.waitForFunction(() => ['done', 'failed'].includes(document.documentElement.dataset.drbState ?? ''), null, {
  timeout: 120000,
});
console.log(
  await page.evaluate(() => [
    document.documentElement.dataset.drbState,
    document.querySelector('[data-testid=protocol-progress]')?.textContent,
    document.querySelector('[data-testid=last-outcome]')?.textContent,
    document.documentElement.scrollWidth,
    window.innerWidth,
    (window as any).drbSession.receipts.length,
  ]),
);
await page.screenshot({ path: '/tmp/fk/p1.png', fullPage: true });
await b.close();
await server.close();
