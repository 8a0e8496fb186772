/**
 * Operator-chosen secrets (keys of `CAPTURE_API_KEYS`, the link id secret) must hold at least this
 * many bits: below it, a key can be guessed offline from anything derived from it.
 */
export const MIN_SECRET_BITS = 128;

/** How an operator makes a secret that passes. */
export const MAKE_A_STRONG_SECRET = '`openssl rand -hex 32` or `capture-engine keys generate`';

/**
 * Classes of characters and how many each holds. A character outside printable ASCII counts as
 * one of 100 more, as zxcvbn's brute-force estimate does.
 */
const CLASSES: readonly { size: number; test: (char: string) => boolean }[] = [
  { size: 26, test: (char) => char >= 'a' && char <= 'z' },
  { size: 26, test: (char) => char >= 'A' && char <= 'Z' },
  { size: 10, test: (char) => char >= '0' && char <= '9' },
  { size: 33, test: (char) => char >= ' ' && char <= '~' && !/[A-Za-z0-9]/.test(char) },
  { size: 100, test: (char) => char < ' ' || char > '~' },
];

/**
 * An upper bound on a secret's entropy in bits: its length in characters × log2 of the size of the
 * character classes it uses (lower case 26, upper case 26, digits 10, ASCII symbols and space 33,
 * anything else 100). It is what the secret would hold were every character drawn at random from
 * those classes, so it refuses short keys and keys of one small class; a long key that is not
 * random (`aaaa…`, a sentence) still passes, which is why keys should come from a random source.
 * 32 random bytes as hex (64 characters) are estimated at 330 bits; `my-secret-key` at 76.
 */
export function estimatedBits(secret: string): number {
  const chars = [...secret];
  const alphabet = CLASSES.filter((charClass) => chars.some(charClass.test)).reduce((sum, charClass) => sum + charClass.size, 0);
  return alphabet === 0 ? 0 : chars.length * Math.log2(alphabet);
}

/**
 * Throws, naming `where` (a position or a variable, never the secret), when the secret is
 * estimated under MIN_SECRET_BITS.
 */
export function requireStrongSecret(secret: string, where: string, optOut: string): void {
  const bits = estimatedBits(secret);
  if (bits >= MIN_SECRET_BITS) return;
  throw new Error(
    `${where} is too weak: about ${Math.floor(bits)} bits of entropy (length × log2 of the character classes it uses), and at least ${MIN_SECRET_BITS} are needed. ` +
      `Make a random one with ${MAKE_A_STRONG_SECRET}. For tests only, ${optOut} turns this check off.`,
  );
}
