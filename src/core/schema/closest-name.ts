import { closest, distance } from 'fastest-levenshtein';

/**
 * The name a misspelt one most likely meant: the closest of `known` (Levenshtein), if it is within
 * a third of the name's length in edits (two at least). Case and `-` for `_` count for nothing.
 */
export function closestName(name: string, known: readonly string[]): string | undefined {
  const plain = plainSpelling(name);
  const spelt = known.map(plainSpelling);
  const exact = spelt.indexOf(plain);
  if (exact >= 0) return known[exact];
  const nearest = closest(plain, spelt);
  return distance(plain, nearest) <= Math.max(2, Math.floor(plain.length / 3)) ? known[spelt.indexOf(nearest)] : undefined;
}

const plainSpelling = (name: string): string => name.toLowerCase().replaceAll('-', '_');
