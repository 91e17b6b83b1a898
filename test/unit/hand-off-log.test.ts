// The hand-off log (src/core/field/hand-off.ts): which receipts are in a file the tester has, so protocol mode hands
// off exactly those not yet handed off before the cold step's site-data clear.
import { describe, expect, it } from 'vitest';
import { EMPTY_HAND_OFF_LOG, notHandedOff, readHandOffLog, recordHandOff } from '../../src/core/field/hand-off.ts';

const r = (id: string) => ({ receipt_id: `receipt-${id}` });

describe('hand-off log', () => {
  it('offers every receipt once: after a hand-off only the newer ones', () => {
    const first = [r('a'), r('b')];
    const log = recordHandOff(EMPTY_HAND_OFF_LOG, first, 'downloaded', '2026-12-01T08:00:00Z');
    expect(log).toEqual({
      receipt_ids: ['receipt-a', 'receipt-b'],
      hand_offs: [{ at: '2026-12-01T08:00:00Z', how: 'downloaded', receipts: 2 }],
    });
    expect(notHandedOff([...first, r('c')], log)).toEqual([r('c')]);
    const again = recordHandOff(log, [r('b'), r('c')], 'shared', '2026-12-01T09:00:00Z');
    expect(again.hand_offs.at(-1)).toEqual({ at: '2026-12-01T09:00:00Z', how: 'shared', receipts: 1 });
    expect(notHandedOff([...first, r('c')], again)).toEqual([]);
  });

  it('reads a damaged stored log as empty, so nothing is lost (a receipt handed off twice counts once at the desk)', () => {
    expect(readHandOffLog({ receipt_ids: ['x'] })).toEqual(EMPTY_HAND_OFF_LOG);
    expect(readHandOffLog('garbage')).toEqual(EMPTY_HAND_OFF_LOG);
    expect(
      readHandOffLog({ receipt_ids: ['receipt-1'], hand_offs: [{ at: 'not a time', how: 'shared', receipts: 1 }] }),
    ).toEqual(EMPTY_HAND_OFF_LOG);
  });
});
