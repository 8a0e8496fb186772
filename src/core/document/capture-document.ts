import { readFile } from 'node:fs/promises';
import { posix } from 'node:path';
import type { CaptureParams } from '../schema/capture-params.js';
import { documentPath } from '../schema/document-params.js';
import { markdownPage } from './markdown-page.js';
import { mimeTypes } from './mime-types.js';
import { includeMarkdown } from './markdown-includes.js';

/**
 * Where a document is served to Chromium from memory. `.invalid` never resolves (RFC 6761), so a
 * request the capture does not answer itself fails instead of reaching anything; https makes the
 * document a secure context, as the pages it stands for usually are.
 */
export const DOCUMENT_ORIGIN = 'https://document.capture-engine.invalid';

/** A file of the document: its bytes, or the file on disk holding them (an upload). */
export type DocumentAsset = { type: string } & ({ body: Buffer; path?: undefined } | { path: string; body?: undefined });

/** A document to capture instead of a URL: its entry page and every file by path. */
export interface CaptureDocument {
  /** The address the page is opened at. */
  url: string;
  assets: ReadonlyMap<string, DocumentAsset>;
}

const ENTRY = 'index.html';

/**
 * The document of `html`, `markdown` or `files`; undefined when the capture is of a URL. `signal`
 * ends a Markdown conversion. `uploads` names, by path, the files on disk that stand for `files`
 * of an upload (whose `content` is then their digest).
 */
export async function documentOf(params: CaptureParams, signal?: AbortSignal, uploads?: ReadonlyMap<string, string>): Promise<CaptureDocument | undefined> {
  if (params.html !== undefined) return served(new Map([[ENTRY, page(params.html)]]));
  if (params.markdown !== undefined) return served(new Map([[ENTRY, page(await markdownPage(params.markdown, params.markdown_template, signal))]]));
  if (params.files === undefined) return undefined;
  const assets = new Map<string, DocumentAsset>();
  for (const file of params.files) {
    const path = documentPath(file.name) as string;
    const type = file.type ?? (mimeTypes().contentType(posix.basename(path)) || 'application/octet-stream');
    const onDisk = uploads?.get(path);
    assets.set(path, onDisk === undefined ? { body: Buffer.from(file.content, file.encoding ?? 'utf8'), type } : { path: onDisk, type });
  }
  const markdown = assets.get('index.md');
  if (!assets.has(ENTRY) && markdown) assets.set(ENTRY, page(await markdownPage((await bytesOf(markdown)).toString('utf8'), params.markdown_template, signal)));
  else await includeMarkdown(assets, bytesOf, page, signal);
  return served(assets);
}

/**
 * The document opened at one of its files instead of its index (a pdf_merge part's upload), the
 * other files its assets: a page as it is, Markdown rendered in its place.
 */
export async function documentAt(document: CaptureDocument, path: string, template: string | undefined, signal?: AbortSignal): Promise<CaptureDocument> {
  const assets = new Map(document.assets);
  const entry = assets.get(path);
  if (entry && posix.extname(path).toLowerCase() === '.md') assets.set(path, page(await markdownPage((await bytesOf(entry)).toString('utf8'), template, signal)));
  return { url: `${DOCUMENT_ORIGIN}/${path.split('/').map(encodeURIComponent).join('/')}`, assets };
}

/** An asset's bytes, read from disk for an upload. */
export function bytesOf(asset: DocumentAsset): Promise<Buffer> {
  return asset.path === undefined ? Promise.resolve(asset.body) : readFile(asset.path);
}

function page(html: string): DocumentAsset {
  return { body: Buffer.from(html, 'utf8'), type: 'text/html; charset=utf-8' };
}

function served(assets: Map<string, DocumentAsset>): CaptureDocument {
  return { url: `${DOCUMENT_ORIGIN}/${ENTRY}`, assets };
}

/**
 * The file a request of the document asks for: by its path, or, as Gotenberg's flat uploads
 * are referenced, by its name alone when one file has it.
 */
export function assetFor(document: CaptureDocument, url: string): DocumentAsset | undefined {
  const { pathname } = new URL(url);
  let path: string | undefined;
  try {
    path = documentPath(decodeURIComponent(pathname)) ?? ENTRY;
  } catch {
    return undefined;
  }
  const exact = document.assets.get(path);
  if (exact) return exact;
  const name = posix.basename(path);
  const named = [...document.assets].filter(([candidate]) => posix.basename(candidate) === name);
  return named.length === 1 ? named[0]?.[1] : undefined;
}
