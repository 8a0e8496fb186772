import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DOC_TABLES, TABLE_PAGES, tableSection, withSection, type DocTable } from '../helpers/docs-tables.js';
import { ROOT } from '../helpers/docs-pages.js';

describe('the docs tables generated from the schema and the tiers', () => {
  it.each(Object.keys(DOC_TABLES) as DocTable[])('%s table is up to date (npm run docs:tables rewrites it)', (name) => {
    const file = path.join(ROOT, TABLE_PAGES[name]);
    const page = readFileSync(file, 'utf8');
    const table = DOC_TABLES[name]();
    if (process.env.UPDATE_DOCS === '1') writeFileSync(file, withSection(page, name, table));
    else expect(tableSection(page, name)).toBe(table);
  });
});
