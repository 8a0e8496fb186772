import { describe, expect, it } from 'vitest';
import { codeBlocks, docPages, linksOf, readPage } from '../helpers/docs-pages.js';

const isShell = (lang: string): boolean => ['sh', 'bash', 'shell'].includes(lang);
const definition = (name: string): RegExp => new RegExp(`(^|\\s)(export\\s+)?(\\w+=\\S*\\s+)*${name}=\\S*`, 'm');
const uses = (name: string, code: string): boolean => new RegExp(`\\$\\{?${name}\\b`).test(code.replace(definition(name), ''));

/** The README's shell blocks, in order. */
const readmeShell = codeBlocks('README.md').filter((block) => isShell(block.lang));

// Issue 50, item 2: about 40 curl examples used $API and $KEY, defined nowhere.
describe('the shell examples', () => {
  it.each(['API', 'KEY'])('of the README define $%s before the first example that uses it', (name) => {
    const definedIn = readmeShell.findIndex((block) => definition(name).test(block.code));
    const firstUse = readmeShell.findIndex((block) => uses(name, block.code));
    expect(definedIn).toBeGreaterThanOrEqual(0);
    expect(firstUse).toBeGreaterThanOrEqual(definedIn);
  });

  it.each(docPages().filter((page) => page !== 'README.md'))('of %s use $API and $KEY only with a link to where the README defines them', (page) => {
    const shell = codeBlocks(page).filter((block) => isShell(block.lang));
    const defined = shell.some((block) => definition('API').test(block.code));
    if (!defined && shell.some((block) => uses('API', block.code) || uses('KEY', block.code))) expect(linksOf(readPage(page))).toContain('../README.md#first-capture');
    expect(readmeShell.some((block) => definition('API').test(block.code) && definition('KEY').test(block.code))).toBe(true);
  });
});
