import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { README_TABLES, readmeSection, withSection, type ReadmeTable } from '../helpers/readme-tables.js';

const README = new URL('../../README.md', import.meta.url);

describe('README tables generated from the schema and the tiers', () => {
  it.each(Object.keys(README_TABLES) as ReadmeTable[])('%s table is up to date (UPDATE_README=1 rewrites it)', (name) => {
    const readme = readFileSync(README, 'utf8');
    const table = README_TABLES[name]();
    if (process.env.UPDATE_README === '1') writeFileSync(README, withSection(readme, name, table));
    else expect(readmeSection(readme, name)).toBe(table);
  });
});
