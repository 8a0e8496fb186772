import { writeFile } from 'node:fs/promises';

interface Har {
  log: { version: string; creator: unknown; browser?: unknown; pages?: unknown[]; entries: unknown[] };
}

/** A `.har.zip` file, as shot-scraper names them; any other name is the HAR's JSON. */
export const isZipName = (file: string): boolean => file.toLowerCase().endsWith('.har.zip');

/**
 * Writes the HARs of a command's pages as one, as shot-scraper records every page of `multi --har`
 * in one archive: the pages and entries of each, in order. A `.har.zip` holds it as `har.har`.
 */
export async function writeHar(hars: readonly unknown[], file: string): Promise<void> {
  const [first] = hars as Har[];
  if (first === undefined) throw new Error(`no page was loaded: ${file} has nothing to record`);
  const har: Har = { log: { ...first.log, pages: (hars as Har[]).flatMap((each) => each.log.pages ?? []), entries: (hars as Har[]).flatMap((each) => each.log.entries) } };
  const json = JSON.stringify(har, null, 2);
  if (!isZipName(file)) return writeFile(file, json);
  const { strToU8, zipSync } = await import('fflate');
  await writeFile(file, zipSync({ 'har.har': strToU8(json) }));
}
