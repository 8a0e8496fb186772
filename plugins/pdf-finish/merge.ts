import { readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { MergedPart } from '../../src/core/plugin-api.js';
import type { CaptureParams } from '../../src/core/schema/capture-params.js';
import type { CaptureDocument } from '../../src/core/document/capture-document.js';
import { CaptureError } from '../../src/core/errors/catalogue.js';
import { captureErrors } from '../../src/core/errors/factories.js';
import { tooLarge } from '../scenario-static/pdf-limits.js';
import { setDocumentInfo } from '../shared/pdf-document-info.js';
import { runTool } from './run-tool.js';
import type { QpdfJob } from './qpdf-pass.js';

/** An outline entry: its title and the page (from 0) it opens at. */
interface Entry {
  title: string;
  page: number;
}

/**
 * pdf_merge's parts joined by qpdf in order (pages, links and annotations; the parts' own document
 * information, tags and outlines are not carried), with an outline entry at each part's first page
 * and the first part's title as the document's. The whole is held to pdf_max_pages and
 * pdf_max_bytes: pages counted before the join, bytes after it.
 */
export async function joinParts(parts: readonly MergedPart[], document: CaptureDocument | undefined, params: Pick<CaptureParams, 'pdf_max_pages' | 'pdf_max_bytes'>, job: QpdfJob): Promise<Buffer> {
  const files: string[] = [];
  const entries: Entry[] = [];
  let pages = 0;
  for (const part of parts) {
    const file = await partFile(part, document, job.dir);
    const count = await pageCount(part, file, job);
    files.push(file);
    if (count > 0) entries.push({ title: part.title, page: pages });
    pages += count;
    const max = params.pdf_max_pages;
    if (max !== undefined && pages > max) throw tooLarge('pdf_max_pages', `The merged PDF has more than pdf_max_pages (${max.toLocaleString('en-US')} pages)`, max);
  }
  const output = path.join(job.dir, 'merged.pdf');
  await runTool({ step: 'pdf_merge', binary: job.qpdf, args: ['--empty', '--pages', ...files.flatMap((file) => [file, '1-z']), '--', output], cwd: job.dir, output, signal: job.signal, timeoutMs: job.timeoutMs }, [0, 3]);
  const maxBytes = params.pdf_max_bytes;
  // Checked before it is read: a join over the limit is never held in memory.
  if (maxBytes !== undefined && (await stat(output)).size > maxBytes) throw tooLarge('pdf_max_bytes', `The merged PDF is larger than pdf_max_bytes (${maxBytes.toLocaleString('en-US')} bytes)`, maxBytes);
  return withOutline(await readFile(output), entries);
}

/** Where qpdf reads a part from: its print's temporary file, the upload on disk, or bytes written out. */
async function partFile(part: MergedPart, document: CaptureDocument | undefined, dir: string): Promise<string> {
  if (part.path !== undefined) return part.path;
  const upload = part.file === undefined ? undefined : document?.assets.get(part.file);
  if (upload?.path !== undefined) return upload.path;
  const data = part.data ?? upload?.body;
  if (data === undefined) throw captureErrors.internal(`pdf_merge[${part.index}] has no PDF`);
  const file = path.join(dir, `part-${part.index}.pdf`);
  await writeFile(file, data);
  return file;
}

/** The part's pages, as qpdf counts them; an upload qpdf cannot read (no PDF, or a password) is the caller's to mend. */
async function pageCount(part: MergedPart, file: string, job: QpdfJob): Promise<number> {
  const step = `pdf_merge[${part.index}]`;
  const answer = await runTool({ step, binary: job.qpdf, args: ['--show-npages', file], cwd: job.dir, signal: job.signal, timeoutMs: job.timeoutMs }, [0, 3]).catch((error: unknown) => {
    if (part.file === undefined || !(error instanceof CaptureError) || error.details.reason !== 'pdf_tools') throw error;
    throw captureErrors.invalidParameter(`${step}.file`, `Invalid parameter '${step}.file': '${part.file}' is no PDF qpdf can read (${error.message})`, 'an unencrypted PDF');
  });
  const count = Number(answer.trim());
  if (!Number.isInteger(count)) throw captureErrors.internal(`${step}: qpdf counted no pages`);
  return count;
}

/** The document with one outline entry per part, shown when it opens, and the first part's title. */
async function withOutline(pdf: Buffer, entries: readonly Entry[]): Promise<Buffer> {
  const { PDFDocument, PDFHexString, PDFName } = await import('@cantoo/pdf-lib');
  const merged = await PDFDocument.load(pdf, { updateMetadata: false });
  const { context } = merged;
  const pages = merged.getPages();
  const outlines = context.nextRef();
  const refs = entries.map(() => context.nextRef());
  for (const [index, entry] of entries.entries()) {
    const neighbours = { ...(index > 0 ? { Prev: refs[index - 1] } : {}), ...(index < refs.length - 1 ? { Next: refs[index + 1] } : {}) };
    const page = pages[entry.page];
    if (page === undefined) throw captureErrors.internal(`pdf_merge: no page ${entry.page + 1} in the merged PDF`);
    context.assign(refs[index] as never, context.obj({ Title: PDFHexString.fromText(entry.title), Parent: outlines, ...neighbours, Dest: [page.ref, 'XYZ', null, null, null] }));
  }
  if (refs.length > 0) {
    context.assign(outlines, context.obj({ Type: 'Outlines', First: refs[0], Last: refs.at(-1), Count: refs.length }));
    merged.catalog.set(PDFName.of('Outlines'), outlines);
    merged.catalog.set(PDFName.of('PageMode'), PDFName.of('UseOutlines'));
  }
  setDocumentInfo(merged, { Title: entries[0]?.title });
  return Buffer.from(await merged.save({ useObjectStreams: false }));
}
