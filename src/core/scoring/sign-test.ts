/**
 * Exact two-sided sign test on the discordant pairs of a paired comparison: under the null hypothesis each
 * discordant row is better or worse with probability 1/2, so the number of `better` rows is Binomial(n, 1/2) with
 * n = better + worse. p = min(1, 2 * P(X <= min(better, worse))); ties (concordant rows) carry no information and
 * are left out. Source: https://en.wikipedia.org/wiki/Sign_test (and e.g. Conover, Practical Nonparametric
 * Statistics, 3rd ed., section 3.4). Written by hand: a binomial tail is a dozen lines, not worth a statistics
 * dependency in src/core (which the page bundles too).
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
  // Up to n = 1000, 2^-n is a normal double, so the pmf can be built directly from pmf(0) = 2^-n with
  // pmf(i) = pmf(i-1) * (n-i+1) / i: each step rounds once, and small cases come out exact (n = 7, k = 1 gives 0.125).
  if (n <= 1000) {
    let pmf = 2 ** -n;
    let tail = pmf;
    for (let i = 1; i <= k; i++) {
      pmf = (pmf * (n - i + 1)) / i;
      tail += pmf;
    }
    return Math.min(1, 2 * tail);
  }
  // Why log space beyond that: 2^-n underflows to 0 for n > 1074 and C(n, k) overflows near n = 1030, so neither the
  // pmf nor the binomial coefficient can be formed directly. We sum pmf(i) = exp(log C(n, i) - n log 2) for
  // i = 0..k with log-sum-exp, building log C(n, i) from log C(n, i-1) + log((n-i+1)/i).
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
  return Math.min(1, 2 * Math.exp(maxLog + Math.log(sum)));
}
