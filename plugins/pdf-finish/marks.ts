import { CaptureError } from '../../src/core/errors/catalogue.js';

export interface TextMark {
  /** `pdf_watermark` (drawn behind the page's content) or `pdf_stamp` (over it). */
  param: 'pdf_watermark' | 'pdf_stamp';
  text: string;
  opacity: number;
  /** Degrees, counter-clockwise, about the page's centre. */
  angle: number;
  /** Page ranges as `1-3, 5`; every page when undefined. */
  pages?: string;
}

/** Grey behind the content, red over it, so a stamp stands out from the page it marks. */
const COLOURS = { pdf_watermark: [0.5, 0.5, 0.5], pdf_stamp: [0.8, 0, 0] } as const;

/**
 * The text drawn centred on each chosen page with pdf-lib, in Helvetica (a standard font: PDF/A,
 * when asked, embeds it afterwards). A watermark's drawing is moved to the front of the page's
 * content streams, so the page paints over it; a stamp's stays last, on top.
 */
export async function drawMarks(pdf: Buffer, marks: TextMark[]): Promise<Buffer> {
  const { PDFDocument, StandardFonts, degrees, rgb, PDFName, PDFArray } = await import('@cantoo/pdf-lib');
  const document = await PDFDocument.load(pdf, { updateMetadata: false });
  const font = await document.embedFont(StandardFonts.Helvetica);
  const pages = document.getPages();
  for (const mark of marks) {
    const chosen = pageIndexes(mark, pages.length);
    if (!/^[\x20-\x7e\xa0-\xff]+$/.test(mark.text)) throw outsideLatin1(mark.param);
    const width = font.widthOfTextAtSize(mark.text, 1);
    for (const index of chosen) {
      const page = pages[index];
      if (!page) continue;
      const { width: pageWidth, height: pageHeight } = page.getSize();
      const size = Math.min(144, Math.max(8, (0.6 * Math.hypot(pageWidth, pageHeight)) / width));
      const radians = (mark.angle * Math.PI) / 180;
      const [halfWidth, halfHeight] = [(width * size) / 2, (font.heightAtSize(size) * 0.7) / 2];
      const x = pageWidth / 2 - halfWidth * Math.cos(radians) + halfHeight * Math.sin(radians);
      const y = pageHeight / 2 - halfWidth * Math.sin(radians) - halfHeight * Math.cos(radians);
      const [r, g, b] = COLOURS[mark.param];
      page.drawText(mark.text, { x, y, size, font, color: rgb(r, g, b), opacity: mark.opacity, rotate: degrees(mark.angle) });
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

/** Helvetica's WinAnsi encoding draws Latin-1 text only; pdf-lib would draw anything else wrongly. */
function outsideLatin1(param: string): CaptureError {
  return new CaptureError('INVALID_PARAMETER', `${param}: the text has characters outside Latin-1, which the standard font cannot draw`, { details: { param } });
}

/** 0-based indexes of the pages a mark's ranges name, within the document. */
function pageIndexes(mark: TextMark, count: number): number[] {
  if (mark.pages === undefined) return [...Array(count).keys()];
  const chosen = new Set<number>();
  for (const range of mark.pages.replace(/\s+/g, '').split(',')) {
    const [from, to = from] = range.split('-').map(Number) as [number, number?];
    for (let page = from; page <= Math.min(to, count); page++) chosen.add(page - 1);
  }
  return [...chosen].sort((a, b) => a - b);
}
