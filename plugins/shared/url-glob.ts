/**
 * Whether `text` matches `pattern` whole, `*` standing for any characters: the greedy two-pointer
 * match with backtracking to the last star only, so any pattern takes at most length × length steps
 * (a regular expression of many `.*` backtracks exponentially on a URL that almost matches).
 */
export function matchesGlob(pattern: string, text: string): boolean {
  let p = 0;
  let t = 0;
  let star = -1;
  let resume = 0;
  while (t < text.length) {
    if (p < pattern.length && pattern[p] !== '*' && pattern[p] === text[t]) {
      p++;
      t++;
    } else if (p < pattern.length && pattern[p] === '*') {
      star = p++;
      resume = t;
    } else if (star >= 0) {
      p = star + 1;
      t = ++resume;
    } else return false;
  }
  while (pattern[p] === '*') p++;
  return p === pattern.length;
}
