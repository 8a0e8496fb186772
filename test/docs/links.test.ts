import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, anchorsOf, docPages, linksOf, readPage } from '../helpers/docs-pages.js';

/** A link that leaves the repository: not checked here. */
const outside = (href: string): boolean => /^[a-z][a-z0-9+.-]*:/i.test(href);

describe('links of the README and the docs pages', () => {
  it.each(docPages())('%s: every link within the repository names a file that exists, and a heading of it', (page) => {
    const broken: string[] = [];
    for (const href of linksOf(readPage(page)).filter((link) => !outside(link))) {
      const [file = '', anchor] = href.split('#');
      const target = file === '' ? path.join(ROOT, page) : path.resolve(path.dirname(path.join(ROOT, page)), decodeURIComponent(file));
      if (!existsSync(target)) broken.push(`${href}: no such file`);
      else if (anchor !== undefined && !anchorsOf(readFileSync(target, 'utf8')).has(anchor)) broken.push(`${href}: no heading of that anchor`);
    }
    expect(broken).toEqual([]);
  });

  it('the docs index links every page of docs/', () => {
    const linked = new Set(linksOf(readPage('docs/README.md')).map((href) => `docs/${href.split('#')[0]}`));
    expect(docPages().filter((page) => page.startsWith('docs/') && page !== 'docs/README.md' && !linked.has(page))).toEqual([]);
  });
});
