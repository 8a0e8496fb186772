import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { runTool } from './run-tool.js';
import { documentInfoOf, isPlainAscii, withDocumentInfo, type DocumentInfo } from './document-info.js';
import type { PDF_A_LEVELS } from '../../src/core/schema/pdf-finish-params.js';

/** Ghostscript run as a batch PDF writer, reading files only where it is told to. */
export const GHOSTSCRIPT_PDFWRITE = ['-q', '-dBATCH', '-dNOPAUSE', '-dSAFER', '-sDEVICE=pdfwrite'];

export type PdfALevel = (typeof PDF_A_LEVELS)[number];

export interface PdfAJob {
  ghostscript: string;
  srgbProfile: string;
  dir: string;
  signal: AbortSignal;
  timeoutMs: number;
  /** pdf_optimize's switches (`optimizingArgs`), done in this one pass. */
  optimize?: string[];
}

/**
 * The PDF rewritten by Ghostscript's pdfwrite as PDF/A-<part>b: colours in RGB with an sRGB output
 * intent, every font embedded, XMP with `pdfaid:part`/`conformance` and the document information
 * mirrored into it. Ghostscript keeps pages, links and the outline; it drops the structure tree
 * (tags), which is why a `b` level and not `a` is claimed. The document information goes through
 * it when plain ASCII; any other is written back afterwards (`withDocumentInfo`).
 */
export async function convertToPdfA(input: Buffer, level: PdfALevel, job: PdfAJob): Promise<Buffer> {
  const part = level.charAt(6);
  const source = path.join(job.dir, 'in.pdf');
  const prefix = path.join(job.dir, 'pdfa.ps');
  const output = path.join(job.dir, 'pdfa.pdf');
  const suffix = path.join(job.dir, 'info.ps');
  const info = await documentInfoOf(input);
  await writeFile(source, input);
  await writeFile(prefix, outputIntentProgram(job.srgbProfile));
  await writeFile(suffix, documentInfoProgram(info));
  await runTool({
    step: job.optimize ? 'pdf_a, pdf_optimize' : 'pdf_a',
    binary: job.ghostscript,
    args: [
      ...GHOSTSCRIPT_PDFWRITE,
      `--permit-file-read=${job.srgbProfile}`,
      `-dPDFA=${part}`,
      // 1: on what PDF/A forbids, drop that feature and go on (2 would abort the file).
      '-dPDFACompatibilityPolicy=1',
      '-sColorConversionStrategy=RGB',
      `-dCompatibilityLevel=${part === '1' ? '1.4' : '1.7'}`,
      '-dEmbedAllFonts=true',
      '-dAutoRotatePages=/None',
      ...(job.optimize ?? []),
      `-sOutputFile=${output}`,
      prefix,
      source,
      suffix,
    ],
    cwd: job.dir,
    output,
    signal: job.signal,
    timeoutMs: job.timeoutMs,
  });
  const converted = await readFile(output);
  return Object.values(info).every(isPlainAscii) ? converted : withDocumentInfo(converted, info);
}

/**
 * The document information's plain ASCII values as a DOCINFO pdfmark run after the input.
 * Ghostscript 10.0 discards the input's whole information dictionary under PDF/A when a value is a
 * UTF-16 string, as pdf-lib writes them ("Text string detected in DOCINFO cannot be represented in
 * XMP"), and it discards non-ASCII pdfmark strings the same way.
 */
function documentInfoProgram(info: DocumentInfo): string {
  const entries = Object.entries(info).filter((entry): entry is [string, string] => entry[1] !== undefined && isPlainAscii(entry[1]));
  if (entries.length === 0) return '%!\n';
  return `%!\n[ ${entries.map(([key, value]) => `/${key} (${psString(value)})`).join(' ')} /DOCINFO pdfmark\n`;
}

/** PostScript escaping of a string literal's content. */
const psString = (text: string): string => text.replace(/[\\()]/g, (c) => `\\${c}`);

/**
 * The pdfmark program Ghostscript's PDFA_def.ps documents, with the profile's components fixed at 3
 * (sRGB) instead of guessed: the profile as a stream, and the catalog's OutputIntents naming it.
 */
function outputIntentProgram(profile: string): string {
  return [
    '%!',
    '[/_objdef {icc_PDFA} /type /stream /OBJ pdfmark',
    '[{icc_PDFA} << /N 3 >> /PUT pdfmark',
    `[{icc_PDFA} (${psString(profile)}) (r) file /PUT pdfmark`,
    '[/_objdef {OutputIntent_PDFA} /type /dict /OBJ pdfmark',
    '[{OutputIntent_PDFA} << /Type /OutputIntent /S /GTS_PDFA1 /DestOutputProfile {icc_PDFA} /OutputConditionIdentifier (sRGB) /Info (sRGB IEC61966-2.1) >> /PUT pdfmark',
    '[{Catalog} << /OutputIntents [ {OutputIntent_PDFA} ] >> /PUT pdfmark',
    '',
  ].join('\n');
}
