import { describe, expect, it } from 'vitest';
import { pdfLimitWatcher } from '../../plugins/scenario-static/pdf-limits.js';

/** The page objects of a three-page PDF as Chromium writes them, with the page tree's node between. */
const PDF = Buffer.from(
  '%PDF-1.4\n1 0 obj\n<</Type /Pages\n/Count 3\n/Kids [2 0 R 3 0 R 4 0 R]>>\nendobj\n' +
    [2, 3, 4].map((n) => `${n} 0 obj\n<</Type /Page\n/Parent 1 0 R\n/Contents ${n + 3} 0 R>>\nendobj\n`).join('') +
    '5 0 obj\n<</Type /Catalog\n/Pages 1 0 R>>\nendobj\n%%EOF',
  'latin1',
);

/** Feeds the PDF to a watcher in two chunks split at `at`; the error it throws, if any. */
function watch(at: number, limits: { pdf_max_pages?: number; pdf_max_bytes?: number }): unknown {
  const onChunk = pdfLimitWatcher(limits);
  try {
    onChunk(PDF.subarray(0, at));
    onChunk(PDF.subarray(at));
    return undefined;
  } catch (error) {
    return error;
  }
}

describe('the printed PDF watched for pdf_max_pages and pdf_max_bytes as it streams', () => {
  it('counts each page once wherever a chunk ends, the page tree\'s nodes not at all', () => {
    for (let at = 0; at <= PDF.length; at += 1) {
      expect(watch(at, { pdf_max_pages: 3 })).toBeUndefined();
      expect(watch(at, { pdf_max_pages: 2 })).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', status: 413, details: { param: 'pdf_max_pages', max: 2 } });
    }
  });

  it('stops at the chunk that passes pdf_max_bytes', () => {
    expect(watch(10, { pdf_max_bytes: PDF.length })).toBeUndefined();
    expect(watch(10, { pdf_max_bytes: PDF.length - 1 })).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', details: { param: 'pdf_max_bytes', max: PDF.length - 1 } });
  });
});
