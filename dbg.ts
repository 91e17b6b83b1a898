import { HOSTILE_CASES, hostileBytes } from './test/fixtures/hostile/hostile-fixtures.ts';
import { validateReceipt } from './src/core/validation/validate-receipt.ts';
for (const c of HOSTILE_CASES) {
  if (!c.reader.startsWith('receipts') || c.symlink_to || c.fifo) continue;
  let v; try { v = JSON.parse(new TextDecoder().decode(hostileBytes(c)).replace(/^\ufeff/, '')); } catch (e) { console.log(c.name, 'PARSE', String(e).slice(0,80)); continue; }
  const r = validateReceipt(v);
  const ok = c.field === undefined || r.problems.some((p) => p.path === c.field);
  console.log(ok ? '  ' : 'XX', c.name, c.expect, c.field ?? '', JSON.stringify(r.problems.slice(0,2)).slice(0, 300));
}
