import { readFile } from 'node:fs/promises';
import type { BrowserContext } from 'playwright-core';
import { InputError } from './exit-codes.js';
import { readInput } from './shot-flags.js';

type Cookie = Parameters<BrowserContext['addCookies']>[0][number];

/** Playwright's storage state, as shot-scraper's `auth` command writes it: cookies, and each origin's localStorage. */
export interface StorageState {
  cookies: Cookie[];
  origins: { origin: string; localStorage: { name: string; value: string }[] }[];
}

const isText = (value: unknown): value is string => typeof value === 'string';

/** `-a auth.json`: the file read and checked, refused with what is wrong in it. */
export async function readStorageState(file: string): Promise<StorageState> {
  const state = await readInput(`-a ${file}`, async () => JSON.parse(await readFile(file, 'utf8')) as unknown);
  const wrong = (what: string): InputError => new InputError(`-a ${file}: ${what} (a storage state as Playwright's storageState() and shot-scraper auth write it: {"cookies": [...], "origins": [...]})`);
  if (state === null || typeof state !== 'object' || Array.isArray(state)) throw wrong('not a JSON object');
  const { cookies = [], origins = [] } = state as { cookies?: unknown; origins?: unknown };
  if (!Array.isArray(cookies)) throw wrong('"cookies" is not a list');
  if (!Array.isArray(origins)) throw wrong('"origins" is not a list');
  for (const [index, cookie] of (cookies as unknown[]).entries()) {
    const { name, value, domain, url } = (cookie ?? {}) as Record<string, unknown>;
    if (!isText(name) || !isText(value) || !(isText(domain) || isText(url))) throw wrong(`cookies[${index}] needs a name, a value and a domain`);
  }
  for (const [index, entry] of (origins as unknown[]).entries()) {
    const { origin, localStorage } = (entry ?? {}) as Record<string, unknown>;
    if (!isText(origin) || !Array.isArray(localStorage) || localStorage.some((item: unknown) => !isText((item as Record<string, unknown> | null)?.name) || !isText((item as Record<string, unknown>).value))) {
      throw wrong(`origins[${index}] needs an origin and a localStorage list of {name, value}`);
    }
  }
  return { cookies: cookies as Cookie[], origins: origins as StorageState['origins'] };
}
