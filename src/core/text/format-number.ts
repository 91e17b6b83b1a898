/**
 * Numbers for people: three significant digits, the way comparison verdicts, reports and summaries print ratios and
 * timings ("0.92x", "1.05", "16.6 ms"). Raw values stay in the JSON; this is for text only.
 */

/**
 * `value` to 3 significant digits without trailing zeros or an exponent (integers from 1000 up are rounded to a whole
 * number rather than to 3 digits, so 12345 ms stays 12345). Non-finite values are printed as JavaScript prints them.
 * @param value the number to show
 */
export function threeSignificant(value: number): string {
  if (!Number.isFinite(value) || value === 0) return String(value);
  if (Math.abs(value) >= 1000) return String(Math.round(value));
  // toPrecision rounds (999.5 -> "1.00e+3"); Number() drops the exponent and trailing zeros ("0.920" -> 0.92).
  return String(Number(value.toPrecision(3)));
}
