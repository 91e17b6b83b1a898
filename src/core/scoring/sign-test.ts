/**
 * Exact two-sided sign test on the discordant pairs of a paired comparison: under the null hypothesis each
 * discordant row is better or worse with probability 1/2, so the number of `better` rows is Binomial(n, 1/2) with
 * n = better + worse. p = min(1, 2 * P(X <= min(better, worse))); ties (concordant rows) carry no information and
 * are left out. Source: https://en.wikipedia.org/wiki/Sign_test (and e.g. Conover, Practical Nonparametric
 * Statistics, 3rd ed., section 3.4).
 *
 * @param better rows where the candidate run is right and the baseline wrong
 * @param worse rows where the baseline is right and the candidate wrong
 * @returns the two-sided p-value; 1 when there are no discordant pairs
 */
export function signTestPValue(better: number, worse: number): number {
  if (!Number.isInteger(better) || !Number.isInteger(worse) || better < 0 || worse < 0) {
    throw new RangeError(`sign test needs two non-negative whole counts, got ${better} and ${worse}`);
  }
  const n = better + worse;
  if (n === 0) return 1;
  const k = Math.min(better, worse);
  // Why log space: 2^-n underflows to 0 for n > 1074 and C(n, k) overflows near n = 1030, so neither the pmf nor
  // the binomial coefficient can be formed directly for large runs. We sum pmf(i) = exp(log C(n, i) - n log 2)
  // for i = 0..k with log-sum-exp, building log C(n, i) from log C(n, i-1) + log((n-i+1)/i).
  const logHalfPowerN = -n * Math.LN2;
  let logChoose = 0; // log C(n, 0)
  const logTerms: number[] = [logHalfPowerN];
  for (let i = 1; i <= k; i++) {
    logChoose += Math.log((n - i + 1) / i);
    logTerms.push(logChoose + logHalfPowerN);
  }
  let maxLog = -Infinity;
  for (const value of logTerms) if (value > maxLog) maxLog = value;
  let sum = 0;
  for (const value of logTerms) sum += Math.exp(value - maxLog);
  const tail = Math.exp(maxLog + Math.log(sum));
  return Math.min(1, 2 * tail);
}
