import { existsSync } from 'node:fs';
import path from 'node:path';
import { formatOfFile } from './output-format.js';
import { isLocalFile, type LocalFiles } from './local-files.js';
import { urlStem } from './har-names.js';

/**
 * What shot-scraper's users write (its `shot` flags and `multi` YAML keys, release 1.11 of
 * simonw/shot-scraper, shot_scraper/cli.py) read as this CLI's parameters.
 */

/** shot-scraper's names of a parameter that has another name here (kebab case on the command line, snake case in YAML). */
export const SCRAPER_NAMES: Record<string, string> = { width: 'viewport_width', height: 'viewport_height', wait: 'delay', wait_for: 'wait_for_function', scale_factor: 'device_scale_factor' };

/** The keys whose several values shot-scraper boxes together: the first match of each selector, every match of each `_all`. */
export const SELECTION_KEYS = ['selector', 'selectors', 'selector_all', 'selectors_all', 'js_selector', 'js_selectors', 'js_selector_all', 'js_selectors_all'] as const;

export interface Selection {
  selectors: string[];
  selectorsAll: string[];
  jsSelectors: string[];
  jsSelectorsAll: string[];
}

export const emptySelection = (): Selection => ({ selectors: [], selectorsAll: [], jsSelectors: [], jsSelectorsAll: [] });

/** Adds one value of a selection key (a string, or a list for the plural keys) to the selection. */
export function addToSelection(selection: Selection, key: (typeof SELECTION_KEYS)[number], value: unknown): void {
  const list = key.startsWith('js_') ? (key.includes('all') ? selection.jsSelectorsAll : selection.jsSelectors) : key.includes('all') ? selection.selectorsAll : selection.selectors;
  for (const each of Array.isArray(value) ? (value as unknown[]) : [value]) list.push(String(each));
}

const MARK = 'capture-engine-selection';

/**
 * The parameters that capture what shot-scraper's selection does: one selector is `selector`, every
 * match of one is `selector` with `selector_all`; more, or a JavaScript selector, mark their
 * elements in an `evaluate` step and capture the box around the marked ones.
 */
export function selectionParams(selection: Selection, actions: unknown): Record<string, unknown> {
  const { selectors, selectorsAll, jsSelectors, jsSelectorsAll } = selection;
  const count = selectors.length + selectorsAll.length + jsSelectors.length + jsSelectorsAll.length;
  if (count === 0) return {};
  if (count === 1 && selectors.length === 1) return { selector: selectors[0] };
  if (count === 1 && selectorsAll.length === 1) return { selector: selectorsAll[0], selector_all: true };
  const mark = `(el) => el && el.classList.add(${JSON.stringify(MARK)})`;
  const all = 'Array.from(document.getElementsByTagName("*"))';
  const script = [
    `const mark = ${mark};`,
    `for (const s of ${JSON.stringify(selectors)}) mark(document.querySelector(s));`,
    `for (const s of ${JSON.stringify(selectorsAll)}) document.querySelectorAll(s).forEach(mark);`,
    ...jsSelectors.map((test) => `mark(${all}.find((el) => ${test}));`),
    ...jsSelectorsAll.map((test) => `${all}.filter((el) => ${test}).forEach(mark);`),
  ].join('\n');
  const steps = Array.isArray(actions) ? actions : [];
  return { selector: `.${MARK}`, selector_all: true, actions: [...steps, { action: 'evaluate', script }] };
}

/** `quality:` without a format saves a JPEG in shot-scraper, whatever the file's name, unless the extension names a lossy image. */
export function qualityFormat(params: Record<string, unknown>, output: string): Record<string, unknown> {
  if (params.quality === undefined || params.format !== undefined) return {};
  const named = formatOfFile(output).format;
  return named === 'webp' || named === 'avif' || named === 'jpg' ? {} : { format: 'jpg' };
}

/** shot-scraper's url_or_file_path: a file that exists is opened with the files beside it, a URL without a scheme gets http://. */
export async function urlOrFile(url: string, localFiles: LocalFiles): Promise<string> {
  if (isLocalFile(url)) return localFiles.urlOf(url);
  return /^[a-z][a-z0-9+.-]*:/i.test(url) ? url : `http://${url}`;
}

/** shot-scraper's filename_for_url: `example-com.png` from the host and path, `example-com.1.png` when that file exists. */
export function filenameForUrl(url: string, extension: string): string {
  let base = url;
  try {
    const parsed = new URL(url);
    base = parsed.host + parsed.pathname;
  } catch {
    base = path.basename(url);
  }
  const stem = urlStem(base);
  let file = `${stem}.${extension}`;
  for (let suffix = 1; existsSync(file); suffix++) file = `${stem}.${suffix}.${extension}`;
  return file;
}
