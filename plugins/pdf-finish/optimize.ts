import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { runTool } from './run-tool.js';
import { GHOSTSCRIPT_PDFWRITE } from './pdf-a.js';

export interface OptimizeJob {
  ghostscript: string;
  dir: string;
  signal: AbortSignal;
  timeoutMs: number;
  /** pdf_image_dpi: images above this resolution are resampled to it; none are when undefined. */
  imageDpi?: number;
}

/**
 * The PDF rewritten by Ghostscript's pdfwrite to be smaller: an image drawn on many pages (a header
 * logo Chromium embeds again on each page) stored once (`DetectDuplicateImages`, by the image's
 * MD5), fonts subset and compressed, and with `imageDpi` the images above it resampled (bicubic)
 * to it. JPEGs pass through unless resampled. Pages, text, links and the outline are kept; the
 * tags are not, which is why it does not go with pdf_ua. qpdf's pass then packs the objects.
 */
export async function optimizeWithGhostscript(input: Buffer, job: OptimizeJob): Promise<Buffer> {
  const source = path.join(job.dir, 'in.pdf');
  const output = path.join(job.dir, 'optimized.pdf');
  await writeFile(source, input);
  await runTool({
    step: job.imageDpi === undefined ? 'pdf_optimize' : 'pdf_optimize, pdf_image_dpi',
    binary: job.ghostscript,
    args: [...GHOSTSCRIPT_PDFWRITE, ...optimizingArgs(job.imageDpi), '-dAutoRotatePages=/None', `-sOutputFile=${output}`, source],
    cwd: job.dir,
    output,
    signal: job.signal,
    timeoutMs: job.timeoutMs,
  });
  return readFile(output);
}

/** pdfwrite's switches for pdf_optimize (and pdf_image_dpi), which PDF/A's pass takes too when both are asked. */
export function optimizingArgs(imageDpi: number | undefined): string[] {
  const resample = (kind: 'Color' | 'Gray' | 'Mono'): string[] =>
    imageDpi === undefined
      ? [`-dDownsample${kind}Images=false`]
      : [`-dDownsample${kind}Images=true`, `-d${kind}ImageResolution=${imageDpi}`, `-d${kind}ImageDownsampleThreshold=1.0`, `-d${kind}ImageDownsampleType=/${kind === 'Mono' ? 'Subsample' : 'Bicubic'}`];
  return ['-dDetectDuplicateImages=true', '-dSubsetFonts=true', '-dCompressFonts=true', ...resample('Color'), ...resample('Gray'), ...resample('Mono')];
}
