import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { attached, bodyOf, embedded, type Har, type HarContent } from './har-bodies.js';
import { filenameForHarEntry } from './har-names.js';

/** A `.har.zip` file, as shot-scraper names them; any other name is the HAR's JSON. */
export const isZipName = (file: string): boolean => file.toLowerCase().endsWith('.har.zip');

/** One HAR of a command's pages, as shot-scraper records every page of `multi --har` in one archive: the pages and entries of each, in order. */
function joined(hars: readonly Har[], file: string): Har {
  const [first] = hars;
  if (first === undefined) throw new Error(`no page was loaded: ${file} has nothing to record`);
  return { log: { ...first.log, pages: hars.flatMap((each) => each.log.pages ?? []), entries: hars.flatMap((each) => each.log.entries) } };
}

const withContent = (har: Har, content: (each: HarContent) => HarContent): Har => ({
  log: { ...har.log, entries: har.log.entries.map((entry) => ({ ...entry, response: { ...entry.response, content: content(entry.response.content) } })) },
});

/**
 * Writes the HARs of a command's pages as one file, with the bodies of the responses as
 * Playwright's recordHar writes them for shot-scraper: inline in a `.har` (text, or base64), and
 * as files named by their SHA-1 beside `har.har` in a `.har.zip`.
 */
export async function writeHar(hars: readonly Har[], file: string): Promise<Har> {
  const har = joined(hars, file);
  if (!isZipName(file)) {
    await writeFile(file, JSON.stringify(withContent(har, embedded), null, 2));
    return har;
  }
  const { strToU8, zipSync } = await import('fflate');
  const files: Record<string, Uint8Array> = {};
  const index = withContent(har, (content) => attached(content, files));
  await writeFile(file, zipSync({ ...files, 'har.har': strToU8(JSON.stringify(index, null, 2)) }));
  return har;
}

/** shot-scraper's `har --extract`: every body into a folder named after the HAR (`page.har` → `page/`), each file named from its URL and type. */
export async function extractHar(har: Har, file: string): Promise<string> {
  const folder = file.replace(/\.har\.zip$|\.har$/i, '');
  await mkdir(folder, { recursive: true });
  const taken = new Set<string>();
  for (const entry of har.log.entries) {
    const bytes = bodyOf(entry.response.content);
    if (bytes === undefined) continue;
    const type = entry.response.headers.find((header) => header.name.toLowerCase() === 'content-type')?.value;
    const name = filenameForHarEntry(entry.request.url, type, (each) => taken.has(each));
    taken.add(name);
    await writeFile(path.join(folder, name), bytes);
  }
  return folder;
}
