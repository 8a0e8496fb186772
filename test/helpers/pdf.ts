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

/** An object of `qpdf --json`: a dictionary's value, or a stream's dictionary. */
export type QpdfObject = { value?: Record<string, unknown>; stream?: { dict: Record<string, unknown> } };

/** The objects `qpdf --json --json-key=qpdf` prints, by `obj:<n> 0 R`, and the document catalog among them. */
export function qpdfObjects(json: string): { all: Record<string, QpdfObject>; catalog: Record<string, unknown> } {
  const all = (JSON.parse(json) as { qpdf: [unknown, Record<string, QpdfObject>] }).qpdf[1];
  const catalog = Object.values(all).find((object) => object.value?.['/Type'] === '/Catalog')?.value ?? {};
  return { all, catalog };
}

/** The dictionary `ref` points to (or `ref` itself, when it is a direct dictionary). */
export function qpdfLookup(all: Record<string, QpdfObject>, ref: unknown): Record<string, unknown> {
  const entry = all[`obj:${String(ref)}`];
  return (entry?.value ?? entry?.stream?.dict ?? (ref as Record<string, unknown>)) as Record<string, unknown>;
}
