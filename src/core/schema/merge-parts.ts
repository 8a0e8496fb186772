import { posix } from 'node:path';
import { CaptureError } from '../errors/catalogue.js';
import { captureErrors } from '../errors/factories.js';
import type { CaptureParams } from './capture-schema.js';
import { documentPath } from './document-params.js';
import { PDF_FINISH_PROPERTIES } from './pdf-finish-params.js';
import { MERGE_FILE_KINDS, MERGE_PART_PARAMS } from './pdf-merge-params.js';

/** One part of pdf_merge as it is printed: the request's parameters with the part's own, and its source. */
export interface MergePart {
  /** Its place in pdf_merge, which errors name (`pdf_merge[2]`). */
  index: number;
  /** What the part is printed with; for a file part, its page is served in place of this `html`. */
  params: CaptureParams;
  /** The upload's path in files, for a file part. */
  file?: string;
  /** An uploaded PDF: joined as it is, never printed. */
  pdf: boolean;
  /** The part's own title for the outline (its params.pdf_title). */
  title?: string;
  /** The parameters its params set, which a refusal while it prints names by their place. */
  own: readonly string[];
}

type RawPart = { url?: string; html?: string; markdown?: string; file?: string; params?: Record<string, unknown> };
type Parse = (raw: Readonly<Record<string, unknown>>) => CaptureParams;

const INPUTS = ['url', 'html', 'markdown', 'file'] as const;
/** The document information is the merged PDF's: set on it once, never on a part. */
const INFO_PARAMS = ['pdf_title', 'pdf_author', 'pdf_subject', 'pdf_keywords', 'pdf_creator', 'pdf_producer', 'pdf_creation_date', 'pdf_modification_date', 'pdf_trapped', 'pdf_metadata'];
/** The request's own, not a part's: its sources, the merge itself, and what is done to the merged PDF. */
const NOT_PER_PART = new Set<string>(['url', 'html', 'markdown', 'files', 'download_from', 'pdf_merge', ...Object.keys(PDF_FINISH_PROPERTIES), ...INFO_PARAMS]);
/** A file part's page is served in its place: this only lets the part's parameters be read as a page's. */
const FILE_STAND_IN = { html: '<!doctype html>' };

/**
 * The parts of `params.pdf_merge`, each read by `parse` as a request of its own (so a part's url,
 * html or markdown meets exactly the top-level checks), with refusals named by their place:
 * `pdf_merge[1].params.pdf_scale`, `pdf_merge[0].url`.
 */
export function mergeParts(params: CaptureParams, parse: Parse): MergePart[] {
  const base = Object.fromEntries(Object.entries(params).filter(([name]) => !NOT_PER_PART.has(name)));
  // The request's Markdown page, for its Markdown parts only (an uploaded .md is rendered with it where it is served).
  const pageBase = { ...base, markdown_template: undefined };
  const uploads = new Set((params.files ?? []).map(({ name }) => documentPath(name)));
  return ((params.pdf_merge ?? []) as RawPart[]).map((part, index) => {
    const at = `pdf_merge[${index}]`;
    const inputs = INPUTS.filter((name) => part[name] !== undefined);
    if (inputs.length !== 1) {
      throw captureErrors.invalidParameter(at, `Invalid parameter '${at}': give one of url, html, markdown or file${inputs.length > 1 ? `, not both ${inputs[0]} and ${inputs[1]}` : ''}`, 'one of url, html, markdown or file');
    }
    const own = part.params ?? {};
    const foreign = Object.keys(own).find((name) => !(MERGE_PART_PARAMS as readonly string[]).includes(name));
    if (foreign !== undefined) {
      const path = `${at}.params.${foreign}`;
      throw captureErrors.invalidParameter(path, `Invalid parameter '${path}': a part sets how its pages are laid out only; give '${foreign}' for the whole request`, MERGE_PART_PARAMS.join(', '));
    }
    const file = part.file === undefined ? undefined : fileOf(part.file, uploads, at);
    const pdf = file !== undefined && posix.extname(file).toLowerCase() === '.pdf';
    if (pdf && Object.keys(own).length > 0) throw captureErrors.invalidParameter(`${at}.params`, `Invalid parameter '${at}.params': an uploaded PDF is joined as it is, with no parameters of its own`, 'no params');
    const { pdf_title: title, ...layout } = own;
    const input = file === undefined ? { url: part.url, html: part.html, markdown: part.markdown } : FILE_STAND_IN;
    try {
      return { index, params: parse({ ...(part.markdown === undefined ? pageBase : base), ...layout, ...input }), file, pdf, own: Object.keys(own), title: title === undefined ? undefined : (parse({ html: '-', format: 'pdf', pdf_title: title }).pdf_title as string) };
    } catch (error) {
      throw error instanceof CaptureError ? placed(error, at, (name) => Object.hasOwn(own, name) || !Object.hasOwn(base, name)) : error;
    }
  });
}

/** The upload a part names, as a path of files; refused when it was not uploaded or is no page, Markdown or PDF. */
function fileOf(name: string, uploads: ReadonlySet<string | undefined>, at: string): string {
  const path = documentPath(name);
  if (path === undefined || !uploads.has(path)) throw captureErrors.invalidParameter(`${at}.file`, `Invalid parameter '${at}.file': no file '${name}' was uploaded in files`, 'the name of an uploaded file');
  if (!Object.hasOwn(MERGE_FILE_KINDS, posix.extname(path).toLowerCase())) {
    throw captureErrors.invalidParameter(`${at}.file`, `Invalid parameter '${at}.file': '${name}' is no page, Markdown or PDF`, Object.keys(MERGE_FILE_KINDS).join(', '));
  }
  return path;
}

/**
 * A part's refusal named by where the part gave (or lacks) the parameter: `pdf_merge[1].params.pdf_width`,
 * `pdf_merge[0].url`; the request's own parameters keep their names.
 */
function placed(error: CaptureError, at: string, partOwns: (name: string) => boolean): CaptureError {
  const rename = (name: string): string => {
    const root = name.split(/[.[]/)[0] ?? name;
    if (INPUTS.includes(root as (typeof INPUTS)[number])) return `${at}.${name}`;
    return partOwns(root) ? `${at}.params.${name}` : name;
  };
  const { param, params } = error.details as { param?: string; params?: string[] };
  let message = error.message;
  for (const name of [param, ...(params ?? [])]) if (name !== undefined) message = message.replaceAll(`'${name}'`, `'${rename(name)}'`);
  const details = { ...error.details, ...(param === undefined ? {} : { param: rename(param) }), ...(params === undefined ? {} : { params: params.map(rename) }) };
  return new CaptureError(error.code, message.startsWith(`Invalid parameter '${at}`) ? message : `${at}: ${message}`, { details });
}

/** The urls of pdf_merge's parts, which the egress guard checks as it checks a top-level url. */
export function mergedUrls(params: Pick<CaptureParams, 'pdf_merge'>): string[] {
  return ((params.pdf_merge ?? []) as RawPart[]).flatMap(({ url }) => (url === undefined ? [] : [url]));
}
