import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

/** The shell blocks of the README, in order. */
const shellBlocks = [...README.matchAll(/```(?:sh|bash|shell)\n([\s\S]*?)```/g)].map((match) => match[1] as string);

// Issue 50, item 2: about 40 curl examples used $API and $KEY, defined nowhere.
describe('the README shell examples', () => {
  it.each(['API', 'KEY'])('define $%s before the first example that uses it', (name) => {
    const definedIn = shellBlocks.findIndex((block) => new RegExp(`(^|\\s)(export\\s+)?(\\w+=\\S*\\s+)*${name}=`, 'm').test(block));
    const firstUse = shellBlocks.findIndex((block) => new RegExp(`\\$\\{?${name}\\b`).test(block.replace(new RegExp(`(^|\\s)(export\\s+)?(\\w+=\\S*\\s+)*${name}=\\S*`, 'm'), '')));
    expect(definedIn).toBeGreaterThanOrEqual(0);
    expect(firstUse).toBeGreaterThanOrEqual(definedIn);
  });
});
