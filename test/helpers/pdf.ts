import { inflateSync } from 'node:zlib';

/** What a test can read from a PDF written by Chromium (Skia): its pages' boxes and drawing. */
export interface PdfFacts {
  /** `/MediaBox` of every page in whole points: [width, height]. */
  pages: [number, number][];
  /** The content streams, inflated. */
  content: string;
}

export function readPdf(data: Buffer): PdfFacts {
  const text = data.toString('latin1');
  if (!text.startsWith('%PDF-')) throw new Error('not a PDF');
  const pages = [...text.matchAll(/\/MediaBox \[0 0 ([\d.]+) ([\d.]+)\]/g)].map((m) => [Math.round(Number(m[1])), Math.round(Number(m[2]))] as [number, number]);
  const content = [...text.matchAll(/stream\r?\n([\s\S]*?)endstream/g)]
    .map((m) => {
      try {
        return inflateSync(Buffer.from(m[1] as string, 'latin1')).toString('latin1');
      } catch {
        return '';
      }
    })
    .join('\n');
  return { pages, content };
}
