import { describe, expect, it } from 'vitest';
import { parseCaptureParams } from '../../src/core/schema/capture-params.js';
import { mergeParts } from '../../src/core/schema/merge-parts.js';
import { MAX_PDF_MERGE_PARTS } from '../../src/core/schema/pdf-merge-params.js';

function refusal(raw: Record<string, unknown>): unknown {
  try {
    parseCaptureParams(raw);
  } catch (error) {
    return error;
  }
  throw new Error('expected a refusal');
}

const uploads = [
  { name: 'cover.pdf', content: '%PDF-1.4' },
  { name: 'chapter.md', content: '# Chapter' },
];

describe('pdf_merge', () => {
  it('is the whole document: no other source, format pdf implied, each part with its own layout', () => {
    const params = parseCaptureParams({
      pdf_merge: JSON.stringify([{ url: 'https://example.com/' }, { html: '<p>x</p>', params: { pdf_landscape: 'true', pdf_title: 'Annex' } }, { file: 'cover.pdf' }]),
      files: uploads,
      pdf_password: 'secret',
      pdf_title: 'Whole',
    });
    expect(params.format).toBe('pdf');
    const parts = mergeParts(params, parseCaptureParams);
    expect(parts.map(({ params: part, pdf, file, title }) => [part.url ?? part.html, part.pdf_landscape, pdf, file, title])).toEqual([
      ['https://example.com/', false, false, undefined, undefined],
      ['<p>x</p>', true, false, undefined, 'Annex'],
      ['<!doctype html>', false, true, 'cover.pdf', undefined],
    ]);
    // What is done to the merged PDF, and its document information, are never a part's.
    expect(parts.every(({ params: part }) => part.pdf_password === undefined && part.pdf_title === undefined)).toBe(true);
  });

  it.each([
    [{ pdf_merge: [{ html: 'x', params: { wait_for: '#a' } }] }, 'pdf_merge[0].params.wait_for'],
    [{ pdf_merge: [{ html: 'x' }, { html: 'y', params: { pdf_scale: 5 } }] }, 'pdf_merge[1].params.pdf_scale'],
    [{ pdf_merge: [{ html: 'x', params: { pdf_width: '10in' } }] }, 'pdf_merge[0].params.pdf_height'],
    [{ pdf_merge: [{ html: 'x', params: { pdf_title: '' } }] }, 'pdf_merge[0].params.pdf_title'],
    [{ pdf_merge: [{ url: `https://example.com/${'x'.repeat(8192)}` }] }, 'pdf_merge[0].url'],
    [{ pdf_merge: [{ html: 'x', url: 'https://example.com/' }] }, 'pdf_merge[0]'],
    [{ pdf_merge: [{}] }, 'pdf_merge[0]'],
    [{ pdf_merge: [{ file: 'missing.pdf' }], files: uploads }, 'pdf_merge[0].file'],
    [{ pdf_merge: [{ file: 'notes.txt' }], files: [{ name: 'notes.txt', content: 'x' }] }, 'pdf_merge[0].file'],
    [{ pdf_merge: [{ file: 'cover.pdf', params: { pdf_scale: 0.5 } }], files: uploads }, 'pdf_merge[0].params'],
    [{ pdf_merge: Array.from({ length: MAX_PDF_MERGE_PARTS + 1 }, () => ({ html: 'x' })) }, 'pdf_merge'],
    [{ pdf_merge: '[not json' }, 'pdf_merge'],
  ])('refuses %o as INVALID_PARAMETER naming %s', (raw, param) => {
    expect(refusal(raw)).toMatchObject({ code: 'INVALID_PARAMETER', details: { param } });
  });

  it.each([
    [{ pdf_merge: [{ html: 'x' }], url: 'https://example.com/' }, ['pdf_merge', 'url']],
    [{ pdf_merge: [{ html: 'x' }], pdf_ua: true }, ['pdf_merge', 'pdf_ua']],
    [{ pdf_merge: [{ html: 'x' }], pdf_outline: true }, ['pdf_merge', 'pdf_outline']],
    [{ pdf_merge: [{ html: 'x' }], metadata: 'true', response_type: 'json' }, ['pdf_merge', 'metadata']],
    [{ pdf_merge: [{ html: 'x' }], format: 'png' }, ['pdf_merge', 'format']],
    [{ pdf_merge: [{ html: 'x', params: { pdf_single_page: true } }], pdf_paper: 'Letter' }, ['pdf_merge[0].params.pdf_single_page', 'pdf_paper']],
  ])('refuses %o as INCOMPATIBLE_PARAMETERS naming %o', (raw, params) => {
    expect(refusal(raw)).toMatchObject({ code: 'INCOMPATIBLE_PARAMETERS', details: { params } });
  });

  it('still needs an index.html or index.md in files without it', () => {
    expect(refusal({ files: uploads })).toMatchObject({ code: 'INVALID_PARAMETER', details: { param: 'files' } });
  });
});
