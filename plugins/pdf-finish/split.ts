import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { zipSync } from 'fflate';
import { captureErrors } from '../../src/core/errors/factories.js';
import { MAX_PDF_SPLIT_FILES, SPLIT_FILE_PREFIX, splitRangesOf } from '../../src/core/schema/pdf-finish-params.js';
import { runTool } from './run-tool.js';
import type { QpdfJob } from './qpdf-pass.js';

/** One file of a split: the pages it holds (`1-2`, `3`) and its bytes. */
export interface SplitPart {
  pages: string;
  data: Buffer;
}

/** The ranges of a `pdf_split` value in a PDF of `count` pages, as qpdf takes them; a page it does not have is refused. */
function rangesIn(value: string, count: number): string[] {
  const ranges = splitRangesOf(value);
  if (ranges === 'pages') {
    if (count > MAX_PDF_SPLIT_FILES) throw captureErrors.invalidParameter('pdf_split', `Invalid parameter 'pdf_split': the PDF has ${count} pages, at most ${MAX_PDF_SPLIT_FILES} files allowed`, 'page ranges, or pdf_split_unify');
    return Array.from({ length: count }, (_, index) => String(index + 1));
  }
  const beyond = ranges.find(([, last]) => last > count);
  if (beyond) throw captureErrors.invalidParameter('pdf_split', `Invalid parameter 'pdf_split': page ${beyond[1]} asked for, the PDF has ${count}`, `pages 1 to ${count}`);
  return ranges.map(([first, last]) => (first === last ? String(first) : `${first}-${last}`));
}

/**
 * The PDF cut by qpdf into one file per range (or one file of all of them, `unify`), each keeping
 * the document's information; one bounded qpdf run a file, in the caller's temp dir.
 */
export async function splitPdf(input: Buffer, value: string, unify: boolean, job: QpdfJob): Promise<SplitPart[]> {
  const { PDFDocument } = await import('pdf-lib');
  const count = (await PDFDocument.load(input, { updateMetadata: false })).getPageCount();
  const ranges = rangesIn(value, count);
  const source = path.join(job.dir, 'whole.pdf');
  await writeFile(source, input);
  const wanted = unify ? [ranges.join(',')] : ranges;
  const parts: SplitPart[] = [];
  for (const [index, pages] of wanted.entries()) {
    const output = path.join(job.dir, `part-${index + 1}.pdf`);
    await runTool({ step: 'pdf_split', binary: job.qpdf, args: [source, '--pages', '.', pages, '--', output], cwd: job.dir, output, signal: job.signal, timeoutMs: job.timeoutMs }, [0, 3]);
    parts.push({ pages, data: await readFile(output) });
  }
  return parts;
}

/** The parts in a ZIP, each named by its pages (`pages-1-2.pdf`); stored, since PDF streams are compressed already. */
export function zipOf(parts: SplitPart[]): Buffer {
  return Buffer.from(zipSync(Object.fromEntries(parts.map((part) => [`${SPLIT_FILE_PREFIX}${part.pages}.pdf`, [new Uint8Array(part.data.buffer, part.data.byteOffset, part.data.length), { level: 0 }]]))));
}
