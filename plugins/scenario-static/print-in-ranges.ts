import { mkdtemp, readFile, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { CaptureContext } from '../../src/core/plugin-api.js';
import type { CaptureParams } from '../../src/core/schema/capture-params.js';
import { readPdfStructure, type PdfStructure } from '../pdf-finish/pdf-structure.js';
import { joinPrintedParts } from '../pdf-finish/join-printed-parts.js';
import type { QpdfJob } from '../pdf-finish/qpdf-pass.js';
import { printedPages } from './pdf-limits.js';

/** How a long document is printed: `pages` at a time, joined by qpdf (none found: printed whole). */
export interface RangePrinting {
  pages: number;
  qpdf: () => Promise<string | undefined>;
}

/** Prints `pageRanges` (all pages when undefined) to `file`, resolving its bytes; rejects with Chromium's own error. */
export type PrintTo = (pageRanges: string | undefined, file: string) => Promise<number>;

/**
 * Largest first part whose pages are counted in its bytes: a shorter document (most are) is then
 * known to be whole without a qpdf process, and a larger part is read by qpdf, not into memory.
 */
const COUNTED_IN_BYTES = 8 * 1024 * 1024;

/** Chromium's answer to a range that starts after the document's last page. */
const PAST_THE_END = /page range exceeds page count/i;

/**
 * Whether the print may be cut into ranges: not when the caller chose the pages or one page, nor
 * when tags are asked for (the join does not carry Chromium's structure tree: join-printed-parts.ts).
 */
export const printableInRanges = (params: CaptureParams): boolean => params.pdf_page_ranges === undefined && !params.pdf_single_page && !params.pdf_tagged && !params.pdf_ua;

/**
 * The document printed `ranges.pages` pages at a time, each part streamed to disk, and the parts
 * joined into `file`. Chromium builds each print's whole PDF before it hands any of it over, and
 * keeps every image it decoded for one until memory runs short: between parts it is told that it
 * does (Memory.simulatePressureNotification), so neither holds more than a part's worth
 * (benchmarks/results/large-pdf.md). A document of one part is that print unchanged, with no
 * join and no notification. The parts are removed on every path.
 */
export async function printInRanges(ctx: CaptureContext, printTo: PrintTo, file: string, ranges: RangePrinting): Promise<number> {
  const qpdf = await ranges.qpdf();
  if (qpdf === undefined) return printTo(undefined, file);
  const dir = await mkdtemp(path.join(tmpdir(), `capture-${ctx.id}-parts-`));
  const job = (): QpdfJob => ({ qpdf, dir, signal: ctx.signal, timeoutMs: ctx.remaining() });
  try {
    const files: string[] = [];
    const parts: PdfStructure[] = [];
    for (let first = 1; ; first += ranges.pages) {
      const part = path.join(dir, `part-${files.length + 1}.pdf`);
      const printed = await printTo(`${first}-${first + ranges.pages - 1}`, part).then(
        () => true,
        (error: unknown) => {
          // A document of exactly so many parts: the range after its last page has nothing to print.
          if (files.length > 0 && PAST_THE_END.test(error instanceof Error ? error.message : String(error))) return false;
          throw error;
        },
      );
      if (!printed) break;
      if (files.length === 0 && (await stat(part)).size <= COUNTED_IN_BYTES && printedPages((await readFile(part)).toString('latin1')) < ranges.pages) {
        await rename(part, file);
        return (await stat(file)).size;
      }
      files.push(part);
      parts.push(await readPdfStructure(part, job()));
      if ((parts.at(-1)?.pages.length ?? 0) < ranges.pages) break;
      await ctx.cdp.send('Memory.simulatePressureNotification', { level: 'critical' });
    }
    if (files.length === 1) await rename(files[0] as string, file);
    else await joinPrintedParts(parts, files, file, job());
    return (await stat(file)).size;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
