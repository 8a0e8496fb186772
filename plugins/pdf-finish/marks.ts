import { CaptureError } from '../../src/core/errors/catalogue.js';
import { bytesOf, type CaptureDocument } from '../../src/core/document/capture-document.js';
import { documentPath } from '../../src/core/schema/document-params.js';
import type { PDFDocument, PDFImage } from '@cantoo/pdf-lib';

export interface Mark {
  /** `pdf_watermark` (drawn behind the page's content) or `pdf_stamp` (over it). */
  param: 'pdf_watermark' | 'pdf_stamp';
  /** The text drawn, or else the path in `files` of the image drawn (`<param>_image`). */
  text?: string;
  image?: string;
  opacity: number;
  /** Degrees, counter-clockwise, about the page's centre. */
  angle: number;
  /** Page ranges as `1-3, 5`; every page when undefined. */
  pages?: string;
}

/** Largest side of a mark's image: pdf-lib decodes a PNG whole, 4 bytes a pixel, to embed it. */
export const MAX_MARK_IMAGE_PIXELS = 4096;
/** A mark's image spans at most this share of the page's width and height. */
const IMAGE_SHARE = 0.5;

/** Grey behind the content, red over it, so a stamp stands out from the page it marks. */
const COLOURS = { pdf_watermark: [0.5, 0.5, 0.5], pdf_stamp: [0.8, 0, 0] } as const;

/**
 * The text, in Helvetica (a standard font: PDF/A, when asked, embeds it afterwards), or the
 * image (embedded once, drawn on every chosen page) drawn centred on each chosen page with
 * pdf-lib. A watermark's drawing is moved to the front of the page's content streams, so the page
 * paints over it; a stamp's stays last, on top.
 */
export async function drawMarks(pdf: Buffer, marks: Mark[], files: CaptureDocument | undefined): Promise<Buffer> {
  const { PDFDocument: Document, StandardFonts, degrees, rgb, PDFName, PDFArray } = await import('@cantoo/pdf-lib');
  const document = await Document.load(pdf, { updateMetadata: false });
  const font = await document.embedFont(StandardFonts.Helvetica);
  const pages = document.getPages();
  for (const mark of marks) {
    const chosen = pageIndexes(mark, pages.length);
    const image = mark.image === undefined ? undefined : await embedImage(document, mark.param, mark.image, files);
    const text = mark.text ?? '';
    if (!image && !/^[\x20-\x7e\xa0-\xff]+$/.test(text)) throw outsideLatin1(mark.param);
    const width = font.widthOfTextAtSize(text, 1);
    const radians = (mark.angle * Math.PI) / 180;
    for (const index of chosen) {
      const page = pages[index];
      if (!page) continue;
      const { width: pageWidth, height: pageHeight } = page.getSize();
      // The corner to draw from so that the turned box is centred on the page.
      const corner = (halfWidth: number, halfHeight: number) => ({
        x: pageWidth / 2 - halfWidth * Math.cos(radians) + halfHeight * Math.sin(radians),
        y: pageHeight / 2 - halfWidth * Math.sin(radians) - halfHeight * Math.cos(radians),
      });
      if (image) {
        const scale = Math.min((IMAGE_SHARE * pageWidth) / image.width, (IMAGE_SHARE * pageHeight) / image.height);
        const [drawnWidth, drawnHeight] = [image.width * scale, image.height * scale];
        page.drawImage(image, { ...corner(drawnWidth / 2, drawnHeight / 2), width: drawnWidth, height: drawnHeight, opacity: mark.opacity, rotate: degrees(mark.angle) });
      } else {
        const size = Math.min(144, Math.max(8, (0.6 * Math.hypot(pageWidth, pageHeight)) / width));
        const [r, g, b] = COLOURS[mark.param];
        page.drawText(text, { ...corner((width * size) / 2, (font.heightAtSize(size) * 0.7) / 2), size, font, color: rgb(r, g, b), opacity: mark.opacity, rotate: degrees(mark.angle) });
      }
      if (mark.param === 'pdf_watermark') {
        const contents = page.node.lookup(PDFName.of('Contents'), PDFArray);
        const drawn = contents.get(contents.size() - 1);
        contents.remove(contents.size() - 1);
        contents.insert(0, drawn);
      }
    }
  }
  return Buffer.from(await document.save({ useObjectStreams: false }));
}

/** The uploaded PNG or JPEG embedded once, its size checked before pdf-lib decodes it. */
async function embedImage(document: PDFDocument, mark: Mark['param'], name: string, files: CaptureDocument | undefined): Promise<PDFImage> {
  const param = `${mark}_image`;
  const refused = (why: string) => new CaptureError('INVALID_PARAMETER', `${param}: ${why}`, { details: { param } });
  const asset = files?.assets.get(documentPath(name) ?? name);
  if (!asset) throw refused(`no file '${name}' in files`);
  const bytes = await bytesOf(asset);
  const { default: sharp } = await import('sharp');
  const { format, width = 0, height = 0 } = await sharp(bytes).metadata().catch(() => ({ format: undefined, width: 0, height: 0 }));
  if (format !== 'png' && format !== 'jpeg') throw refused(`'${name}' is not a PNG or JPEG image`);
  if (Math.max(width, height) > MAX_MARK_IMAGE_PIXELS) throw refused(`'${name}' is ${width}x${height} px, more than ${MAX_MARK_IMAGE_PIXELS} px a side`);
  return format === 'png' ? document.embedPng(bytes) : document.embedJpg(bytes);
}

/** Helvetica's WinAnsi encoding draws Latin-1 text only; pdf-lib would draw anything else wrongly. */
function outsideLatin1(param: string): CaptureError {
  return new CaptureError('INVALID_PARAMETER', `${param}: the text has characters outside Latin-1, which the standard font cannot draw`, { details: { param } });
}

/** 0-based indexes of the pages a mark's ranges name, within the document. */
function pageIndexes(mark: Mark, count: number): number[] {
  if (mark.pages === undefined) return [...Array(count).keys()];
  const chosen = new Set<number>();
  for (const range of mark.pages.replace(/\s+/g, '').split(',')) {
    const [from, to = from] = range.split('-').map(Number) as [number, number?];
    for (let page = from; page <= Math.min(to, count); page++) chosen.add(page - 1);
  }
  return [...chosen].sort((a, b) => a - b);
}
