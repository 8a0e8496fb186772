// Summary statistics of samples. Values that are not finite numbers are left out of medians and
// geometric means; an empty sample gives NaN.

/** Nearest-rank percentile: with few samples, p95 is the slowest one. */
export function percentile(xs, p) {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}

export function median(xs) {
  const v = xs.filter(Number.isFinite);
  if (!v.length) return NaN;
  const s = [...v].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Geometric mean of the positive values (ratios). */
export function geomean(xs) {
  const v = xs.filter((x) => Number.isFinite(x) && x > 0);
  return v.length ? Math.exp(v.reduce((a, x) => a + Math.log(x), 0) / v.length) : NaN;
}

/**
 * The order of `arr` for round `k` of an interleaved series (rotated by k), so that drift and
 * noise from the rest of the machine hit every contender alike.
 */
export const rotate = (arr, k) => arr.map((_, i) => arr[(i + k) % arr.length]);
