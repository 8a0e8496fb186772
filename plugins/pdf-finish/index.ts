import type { CaptureContext, CapturePlugin } from '../../src/core/plugin-api.js';
import type { CaptureParams } from '../../src/core/schema/capture-params.js';
import { CaptureError } from '../../src/core/errors/catalogue.js';
import { findSrgbProfile, findTool, type PdfToolPaths } from './find-tools.js';
import { convertToPdfA } from './pdf-a.js';
import { markPdfUa } from './pdf-ua.js';
import { qpdfPass, type QpdfPass } from './qpdf-pass.js';
import { inTempDir } from './run-tool.js';
import { embedEInvoice, eInvoiceOf } from './e-invoice.js';
import { drawMarks, type Mark } from './marks.js';
import { embedAttachments } from './attachments.js';
import { optimizeWithGhostscript, optimizingArgs } from './optimize.js';
import { signingKeyOf, signPdf, type SigningKey } from './sign.js';
import { splitPdf, zipOf } from './split.js';
import { SPLIT_FILE_PREFIX } from '../../src/core/schema/pdf-split-params.js';
import { joinParts } from './merge.js';
import { wantsMetadata, withMetadata } from '../scenario-static/pdf-metadata.js';

export type { PdfToolPaths } from './find-tools.js';

export interface PdfFinishOptions extends PdfToolPaths {
  /** Where the tools' temp dirs go. @default engine option `tempDir` */
  tempDir?: string;
}

const protectedBy = (params: CaptureParams): boolean => params.pdf_password !== undefined || params.pdf_owner_password !== undefined;
const needsQpdf = (params: CaptureParams): boolean => protectedBy(params) || params.pdf_rotate !== undefined || params.pdf_linearize || params.pdf_optimize || params.pdf_flatten;

/** The watermark and stamp asked for, in drawing order. */
function marksOf(params: CaptureParams): Mark[] {
  const marks: Mark[] = [];
  if (params.pdf_watermark !== undefined || params.pdf_watermark_image !== undefined) {
    marks.push({ param: 'pdf_watermark', text: params.pdf_watermark, image: params.pdf_watermark_image, opacity: params.pdf_watermark_opacity, angle: params.pdf_watermark_angle, pages: params.pdf_watermark_pages });
  }
  if (params.pdf_stamp !== undefined || params.pdf_stamp_image !== undefined) {
    marks.push({ param: 'pdf_stamp', text: params.pdf_stamp, image: params.pdf_stamp_image, opacity: params.pdf_stamp_opacity, angle: params.pdf_stamp_angle, pages: params.pdf_stamp_pages });
  }
  return marks;
}

/** pdf_optimize's packing: no object streams in a PDF/A-1, which forbids them. */
const packOf = (params: CaptureParams): QpdfPass['pack'] => (params.pdf_optimize ? (params.pdf_a === 'PDF/A-1b' ? 'streams' : 'objects') : false);

/**
 * What qpdf is asked to do for these parameters: one pass on the document; with pdf_split, the
 * pages' work on the document and the encryption and linearization on each file of the split.
 */
function qpdfPassesOf(params: CaptureParams): { whole?: QpdfPass; each?: QpdfPass } {
  const protection = protectedBy(params) ? { userPassword: params.pdf_password, ownerPassword: params.pdf_owner_password, permissions: params.pdf_permissions } : undefined;
  const all: QpdfPass = { rotate: params.pdf_rotate, rotatePages: params.pdf_rotate_pages, linearize: params.pdf_linearize, pack: packOf(params), flatten: params.pdf_flatten, protection };
  if (params.pdf_split === undefined) return needsQpdf(params) ? { whole: all } : {};
  const pages = params.pdf_rotate !== undefined || params.pdf_optimize || params.pdf_flatten;
  const sealing = protection !== undefined || params.pdf_linearize;
  return { ...(pages ? { whole: { ...all, linearize: false, protection: undefined } } : {}), ...(sealing ? { each: { linearize: params.pdf_linearize, pack: false, flatten: false, protection } } : {}) };
}

/**
 * What is done to the printed PDF before it is stored, in this order: pdf_merge's parts joined (qpdf, pdf-lib's outline), PDF/UA marks (pdf-lib, on
 * Chromium's tagged file), PDF/A or pdf_optimize (Ghostscript), the e-invoice and the attachments (pdf-lib), one qpdf pass that rotates, flattens, linearizes
 * and encrypts (with pdf_split: rotates and flattens, then qpdf cuts the files and each is linearized and encrypted in a pass of its own), and
 * last on each file the signature (nothing may change the file after it). Each tool runs inside the capture, so within its queue slot and its deadline, in a
 * temp dir removed afterwards, killed when the capture is aborted.
 */
export function pdfFinish(options: PdfFinishOptions = {}): CapturePlugin {
  let tempDir = options.tempDir;
  // Looked up on first use, so an engine without the tools still prints plain PDFs.
  const tools = new Map<string, Promise<string>>();
  const lookUp = (key: string, find: () => Promise<string>): Promise<string> => {
    let found = tools.get(key);
    if (!found) {
      found = find();
      tools.set(key, found);
      found.catch(() => tools.delete(key));
    }
    return found;
  };
  const ghostscript = (): Promise<string> => lookUp('gs', () => findTool('gs', options.ghostscriptPath, 'CAPTURE_GHOSTSCRIPT_PATH'));
  const srgbProfile = async (): Promise<string> => {
    const gs = await ghostscript();
    return lookUp('icc', () => findSrgbProfile(gs, options.srgbProfilePath));
  };
  const qpdf = (): Promise<string> => lookUp('qpdf', () => findTool('qpdf', options.qpdfPath, 'CAPTURE_QPDF_PATH'));
  let signingKey: Promise<SigningKey | undefined> | undefined;
  // Read once; read again after a failure, so that a key the operator puts right is taken without a restart.
  const signingKeyNow = (): Promise<SigningKey | undefined> =>
    (signingKey ??= signingKeyOf().catch((error: unknown) => {
      signingKey = undefined;
      throw error;
    }));

  const finish = async (ctx: CaptureContext): Promise<void> => {
    const data = ctx.output?.data;
    if (ctx.output?.format !== 'pdf' || !data) throw new CaptureError('INTERNAL_ERROR', 'No PDF was printed');
    if (!tempDir) throw new CaptureError('INTERNAL_ERROR', 'pdf-finish has no temporary directory');
    const { params, signal } = ctx;
    let pdf = data;
    const marks = marksOf(params);
    // Before PDF/A, so that Ghostscript embeds the marks' font too.
    if (marks.length > 0) pdf = await drawMarks(pdf, marks, ctx.document);
    if (params.pdf_ua) pdf = await markPdfUa(pdf);
    const invoice = params.pdf_einvoice === undefined ? undefined : await eInvoiceOf(params.pdf_einvoice, ctx.document);
    // An e-invoice is a PDF/A-3b whatever else was asked (the schema refuses another level).
    const level = invoice ? 'PDF/A-3b' : params.pdf_a;
    if (level !== undefined) {
      const [gs, profile] = [await ghostscript(), await srgbProfile()];
      // pdf_optimize's switches in the same pass: a second pdfwrite would not keep what makes the file PDF/A.
      const optimize = params.pdf_optimize ? optimizingArgs(params.pdf_image_dpi) : undefined;
      pdf = await inTempDir(tempDir, (dir) => convertToPdfA(pdf, level, { ghostscript: gs, srgbProfile: profile, dir, signal, timeoutMs: ctx.remaining(), optimize }));
    } else if (params.pdf_optimize) {
      const gs = await ghostscript();
      pdf = await inTempDir(tempDir, (dir) => optimizeWithGhostscript(pdf, { ghostscript: gs, dir, signal, timeoutMs: ctx.remaining(), imageDpi: params.pdf_image_dpi }));
    }
    if (invoice) pdf = await embedEInvoice(pdf, invoice);
    // After PDF/A, whose Ghostscript would not carry them; before encryption.
    if (params.pdf_attachments !== undefined) pdf = await embedAttachments(pdf, params.pdf_attachments, ctx.document, ctx.attachments);
    const passes = qpdfPassesOf(params);
    const runQpdf = async (file: Buffer, pass: QpdfPass): Promise<Buffer> => {
      const binary = await qpdf();
      return inTempDir(tempDir as string, (dir) => qpdfPass(file, pass, { qpdf: binary, dir, signal, timeoutMs: ctx.remaining() }));
    };
    if (passes.whole) pdf = await runQpdf(pdf, passes.whole);
    // Last, on each file of the answer: the encryption (nothing can read the file after it) or the signature (nothing may change it after it).
    const seal = async (file: Buffer): Promise<Buffer> => {
      const passed = passes.each ? await runQpdf(file, passes.each) : file;
      return params.pdf_sign ? signPdf(passed, await signingKeyNow()) : passed;
    };
    if (params.pdf_split === undefined) pdf = await seal(pdf);
    else {
      const [binary, split] = [await qpdf(), params.pdf_split];
      const parts = await inTempDir(tempDir, (dir) => splitPdf(pdf, split, params.pdf_split_unify, { qpdf: binary, dir, signal, timeoutMs: ctx.remaining() }));
      for (const part of parts) part.data = await seal(part.data);
      if (params.pdf_split_unify) pdf = (parts[0] as { data: Buffer }).data;
      else {
        const zip = zipOf(parts);
        // Stored one by one too, so that response_type=json answers where each file is.
        if (params.response_type === 'json') for (const part of parts) ctx.sidecars.push({ name: `${SPLIT_FILE_PREFIX}${part.pages}`, extension: 'pdf', contentType: 'application/pdf', data: part.data });
        ctx.output = { format: 'pdf', archive: 'zip', size: zip.length, data: zip };
        return;
      }
    }
    ctx.output = { format: 'pdf', size: pdf.length, data: pdf };
  };

  /** pdf_merge's parts joined into the one PDF the finishing stage takes, with the request's document information. */
  const merge = async (ctx: CaptureContext): Promise<void> => {
    if (!tempDir) throw new CaptureError('INTERNAL_ERROR', 'pdf-finish has no temporary directory');
    const [binary, dir, parts] = [await qpdf(), tempDir, ctx.merged ?? []];
    const joined = await inTempDir(dir, (jobDir) => joinParts(parts, ctx.document, ctx.params, { qpdf: binary, dir: jobDir, signal: ctx.signal, timeoutMs: ctx.remaining() }));
    const data = wantsMetadata(ctx.params) ? await withMetadata(joined, ctx.params) : joined;
    ctx.output = { format: 'pdf', size: data.length, data };
  };

  return {
    name: 'pdf-finish',
    setup(host) {
      tempDir ??= host.options.tempDir;
    },
    stages: [
      { name: 'merge', phase: 'encode', leavesContextState: false, when: (params) => params.pdf_merge !== undefined, run: merge },
      {
        name: 'finish',
        phase: 'encode',
        leavesContextState: false,
        when: (params) =>
          params.format === 'pdf' && (params.pdf_ua || params.pdf_a !== undefined || params.pdf_einvoice !== undefined || params.pdf_attachments !== undefined || params.pdf_sign || params.pdf_split !== undefined || marksOf(params).length > 0 || needsQpdf(params)),
        run: finish,
      },
    ],
  };
}
