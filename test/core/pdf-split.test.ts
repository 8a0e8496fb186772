import { describe, expect, it } from 'vitest';
import { MAX_PDF_SPLIT_FILES, splitFilesIn, splitSpecOf } from '../../src/core/schema/pdf-split-params.js';

/** pdf_split's forms as qpdf page selections, and their bounds, without a browser (the files are read in test/plugins/pdf-finish.test.ts). */
const filesOf = (value: string, count: number, unify = false): string[] => splitFilesIn(splitSpecOf(value), count, unify);
const refusalOf = (run: () => unknown): unknown => {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
};

describe('pdf_split', () => {
  it("maps Gotenberg's splitMode and splitSpan: intervals of N pages, pages of a selection, open ranges", () => {
    expect(filesOf('every:2', 3)).toEqual(['1-2', '3']);
    expect(filesOf('every:1', 3)).toEqual(['1', '2', '3']);
    expect(filesOf('every:5', 3)).toEqual(['1-3']);
    expect(filesOf('pages:2-', 3)).toEqual(['2', '3']);
    expect(filesOf('pages', 3)).toEqual(['1', '2', '3']);
    for (const open of ['2-', '2-z', '2-end']) expect(filesOf(open, 3, true)).toEqual(['2-3']);
    expect(filesOf('1-2, 3', 3)).toEqual(['1-2', '3']);
    expect(filesOf('3,1', 3, true)).toEqual(['3,1']);
  });

  it(`refuses a page the PDF has not, a file asked twice and more than ${MAX_PDF_SPLIT_FILES} files, naming pdf_split`, () => {
    const named = { code: 'INVALID_PARAMETER', details: { param: 'pdf_split' } };
    expect(refusalOf(() => filesOf('2-5', 2))).toMatchObject({ ...named, message: expect.stringContaining('page 5 asked for, the PDF has 2') });
    expect(refusalOf(() => filesOf('4-', 3))).toMatchObject({ ...named, message: expect.stringContaining('page 4 asked for, the PDF has 3') });
    expect(refusalOf(() => filesOf('pages:1,1', 3))).toMatchObject({ ...named, message: expect.stringContaining("'1' is asked for twice") });
    expect(refusalOf(() => filesOf('every:1', MAX_PDF_SPLIT_FILES + 1))).toMatchObject(named);
    expect(refusalOf(() => filesOf('pages:2-', MAX_PDF_SPLIT_FILES + 2))).toMatchObject(named);
    expect(filesOf('every:2', MAX_PDF_SPLIT_FILES * 2)).toHaveLength(MAX_PDF_SPLIT_FILES);
    // Unified, the selection is one file however many pages it holds.
    expect(filesOf('pages', 10_000, true)).toEqual(['1-10000']);
    for (const value of ['every:0', 'every:x', 'every:', 'pages:', '3-2', '0-1', '1-x', 'odd']) expect(refusalOf(() => splitSpecOf(value))).toMatchObject(named);
  });
});
