import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { zipSync } from 'fflate';
import { SPLIT_FILE_PREFIX, splitFilesIn, splitSpecOf } from '../../src/core/schema/pdf-split-params.js';
import { runTool } from './run-tool.js';
import type { QpdfJob } from './qpdf-pass.js';

/** One file of a split: the pages it holds (`1-2`, `3`) and its bytes. */
export interface SplitPart {
  pages: string;
  data: Buffer;
}

/**
 * The PDF cut by qpdf into one file per range (or one file of all of them, `unify`), each keeping
 * the document's information; one bounded qpdf run a file, in the caller's temp dir.
 */
export async function splitPdf(input: Buffer, value: string, unify: boolean, job: QpdfJob): Promise<SplitPart[]> {
  const { PDFDocument } = await import('pdf-lib');
  const count = (await PDFDocument.load(input, { updateMetadata: false })).getPageCount();
  const wanted = splitFilesIn(splitSpecOf(value), count, unify);
  const source = path.join(job.dir, 'whole.pdf');
  await writeFile(source, input);
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
