import Type from 'typebox';
import { CaptureError } from '../errors/catalogue.js';
import { captureErrors } from '../errors/factories.js';

/** Files one pdf_split may make: each is a qpdf run and an entry of the answer. */
export const MAX_PDF_SPLIT_FILES = 100;
/** The names of a split's files stored beside its ZIP: `pages-1-2` holds pages 1 to 2. */
export const SPLIT_FILE_PREFIX = 'pages-';

/** Pages `first` to `last`; to the document's last page when `last` is undefined (`2-`). */
export type PageRange = [first: number, last: number | undefined];

/**
 * What a `pdf_split` value asks for: one file per range; one file per page (of the ranges, else of
 * the document); or one file per `span` pages in order (Gotenberg's `intervals`).
 */
export type SplitSpec = { kind: 'ranges'; ranges: PageRange[] } | { kind: 'pages'; ranges?: PageRange[] } | { kind: 'every'; span: number };

const FORMS = `ranges such as 1-2,3 or 2- (one file each), pages or pages:<ranges> (one file a page), every:N (one file per N pages)`;

export const PDF_SPLIT_PROPERTIES = {
  pdf_split: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 512,
      description: `Split the PDF, answered as a ZIP (at most ${MAX_PDF_SPLIT_FILES} files): page ranges such as \`1-2,3\` or \`2-\` (to the last page), one PDF per comma-separated range; \`pages\` (one PDF per page) or \`pages:2-\` (one per page of those ranges); \`every:N\` (one PDF per N pages in order, the last one shorter). A password, permissions, pdf_linearize and pdf_sign apply to each file.`,
    }),
  ),
  pdf_split_unify: Type.Boolean({ default: false, description: 'With pdf_split ranges or pages: one PDF of the selected pages, in order, instead of a ZIP.' }),
};

const refused = (why: string): CaptureError => captureErrors.invalidParameter('pdf_split', `Invalid parameter 'pdf_split': ${why}`, FORMS);

/** Comma-separated pages and ranges: `3`, `1-2`, and to the end `2-` (also qpdf's `2-z` and pdftk's `2-end`, as Gotenberg's splitSpan takes them). */
function rangesOf(value: string): PageRange[] {
  const parts = value.split(',').map((part) => part.trim());
  if (parts.length > MAX_PDF_SPLIT_FILES) throw refused(`${parts.length} ranges, at most ${MAX_PDF_SPLIT_FILES} allowed`);
  return parts.map((part) => {
    const match = /^(\d{1,6})(?:\s*(-)\s*(\d{1,6}|z|end)?)?$/.exec(part);
    if (!match) throw refused(`'${part}' is not a page or a range of pages`);
    const first = Number(match[1]);
    const last = match[2] === undefined ? first : match[3] === undefined || match[3] === 'z' || match[3] === 'end' ? undefined : Number(match[3]);
    if (first < 1 || (last !== undefined && last < first)) throw refused(`'${part}' is not a range of pages (they count from 1, the first not after the last)`);
    return [first, last];
  });
}

/** A `pdf_split` value, checked. */
export function splitSpecOf(value: string): SplitSpec {
  const text = value.trim();
  if (text === 'pages') return { kind: 'pages' };
  if (text.startsWith('pages:')) return { kind: 'pages', ranges: rangesOf(text.slice('pages:'.length)) };
  if (text.startsWith('every:')) {
    const span = /^\d{1,6}$/.test(text.slice('every:'.length).trim()) ? Number(text.slice('every:'.length)) : 0;
    if (span < 1) throw refused(`'${text}': every takes a whole number of pages from 1, e.g. every:2`);
    return { kind: 'every', span };
  }
  return { kind: 'ranges', ranges: rangesOf(text) };
}

/**
 * The files of a split of a PDF of `count` pages, each as qpdf takes its pages (`1-2`, `3`), or with
 * `unify` the one file of all the selected pages; a page it does not have, or too many files, is refused.
 */
export function splitFilesIn(spec: SplitSpec, count: number, unify: boolean): string[] {
  const tooMany = (files: number): CaptureError => refused(`${files} files for a PDF of ${count} pages, at most ${MAX_PDF_SPLIT_FILES} allowed`);
  if (spec.kind === 'every') {
    const files = Math.ceil(count / spec.span);
    if (files > MAX_PDF_SPLIT_FILES) throw tooMany(files);
    return Array.from({ length: files }, (_, index) => rangeText(index * spec.span + 1, Math.min((index + 1) * spec.span, count)));
  }
  const ranges = (spec.ranges ?? [[1, undefined]]).map(([first, last]): [number, number] => [first, last ?? count]);
  const beyond = ranges.find(([first, last]) => last > count || first > count);
  if (beyond) throw refused(`page ${Math.max(...beyond)} asked for, the PDF has ${count}`);
  if (unify) return [ranges.map(([first, last]) => rangeText(first, last)).join(',')];
  const selected = ranges.reduce((sum, [first, last]) => sum + last - first + 1, 0);
  if (spec.kind === 'pages' && selected > MAX_PDF_SPLIT_FILES) throw tooMany(selected);
  const files = spec.kind === 'ranges' ? ranges.map(([first, last]) => rangeText(first, last)) : ranges.flatMap(([first, last]) => Array.from({ length: last - first + 1 }, (_, index) => String(first + index)));
  // Each file is named by its pages: one asked twice would be two files of one name.
  const twice = files.find((file, index) => files.indexOf(file) !== index);
  if (twice !== undefined) throw refused(`'${twice}' is asked for twice`);
  return files;
}

const rangeText = (first: number, last: number): string => (first === last ? String(first) : `${first}-${last}`);

/** pdf_split's value and pdf_split_unify go with it; `every` makes files of its own size, which unify would undo. */
export function checkSplit(given: Map<string, unknown>, incompatible: (message: string, params: string[]) => CaptureError): void {
  if (given.get('pdf_split_unify') === true && !given.has('pdf_split')) throw incompatible('pdf_split_unify joins the pages pdf_split selects: add pdf_split', ['pdf_split_unify', 'pdf_split']);
  if (!given.has('pdf_split')) return;
  const spec = splitSpecOf(given.get('pdf_split') as string);
  if (spec.kind === 'every' && given.get('pdf_split_unify') === true) throw incompatible('pdf_split=every:N makes files of N pages, which pdf_split_unify would join again: give ranges', ['pdf_split_unify', 'pdf_split']);
}
