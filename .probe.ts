import { launchChromium } from './src/node/chromium.ts';
import { startStaticServer } from './src/node/static-server.ts';
const server = await startStaticServer({ dir: '/tmp/fx/dist' });
const browser = await launchChromium({ webgpu: true });
const qs = process.argv.slice(2);
for (const q of qs) {
  const page = await browser.context.newPage();
  await page.goto(`${server.url}?autorun=compare&engine=transformers&${q}&rounds=1&rows=4&tolerance=1`);
  await page.waitForFunction(() => ['done', 'failed'].includes(document.documentElement.dataset.drbState ?? ''), null, { timeout: 300000 });
  const arts = await page.evaluate(() => (window as any).drbArtifacts);
  const r = arts.find((a: any) => a.kind === 'comparison-receipt')?.data;
  console.log(q, JSON.stringify(r?.routes.map((x: any) => [x.id, x.invalid_reason?.slice(0, 120), x.agreement?.max_abs_diff, x.output?.head?.slice(0, 3)])));
  await page.close();
}
await browser.close(); await server.close();
