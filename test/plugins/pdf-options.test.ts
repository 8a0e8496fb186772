import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CaptureEngine } from '../../src/index.js';
import { createTestEngine } from '../helpers/engine.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { readPdf } from '../helpers/pdf.js';

/** Gotenberg's PDF options, read back from the PDF's page boxes. */
let fixtures: FixtureServer;
let engine: CaptureEngine;

beforeAll(async () => {
  fixtures = await startFixtureServer();
  engine = await createTestEngine();
});
afterAll(async () => {
  await engine?.close();
  await fixtures?.close();
});

const pdf = async (params: Record<string, unknown>): Promise<[number, number][]> => {
  const result = await engine.capture({ url: fixtures.url('/bands?count=6&band=500'), format: 'pdf', ...params });
  return readPdf(result.data as Buffer).pages;
};
const errorOf = (params: Record<string, unknown>): Promise<unknown> => engine.capture({ url: fixtures.url('/bands?count=6&band=500'), format: 'pdf', ...params }).then(() => undefined, (error: unknown) => error);

describe('PDF options', () => {
  it('prints on custom paper given in any unit, and on paper sizes in mm', async () => {
    expect((await pdf({ pdf_width: '5in', pdf_height: '3in' }))[0]).toEqual([360, 216]);
    expect((await pdf({ pdf_width: '210mm', pdf_height: '297mm' }))[0]).toEqual([596, 842]); // Chromium rounds 595.3 pt up, as for A4
    expect((await pdf({ pdf_width: '480px', pdf_height: '10.16cm' }))[0]).toEqual([360, 288]);
  });

  it('keeps the page ranges asked for, and refuses ranges beyond the document', async () => {
    const all = await pdf({});
    expect(all.length).toBeGreaterThan(2);
    expect(await pdf({ pdf_page_ranges: '1-2' })).toHaveLength(2);
    expect(await pdf({ pdf_page_ranges: ' 1, 3 ' })).toHaveLength(2);
    expect(await errorOf({ pdf_page_ranges: '99' })).toMatchObject({ code: 'INVALID_PARAMETER', details: { param: 'pdf_page_ranges' } });
  });

  it('scale and margins change how much fits on a page', async () => {
    const plain = (await pdf({})).length;
    expect((await pdf({ pdf_scale: 0.5 })).length).toBeLessThan(plain);
    expect((await pdf({ pdf_margin_top: '3in', pdf_margin_bottom: '3in' })).length).toBeGreaterThan(plain);
    expect(await errorOf({ pdf_margin_left: '5in', pdf_margin_right: '5in' })).toMatchObject({ code: 'INCOMPATIBLE_PARAMETERS' });
  });

  it('refuses PDF options on other formats, half a custom size and sizes beyond 200 in', async () => {
    expect(await errorOf({ format: 'png', pdf_scale: 0.5 })).toMatchObject({ code: 'INCOMPATIBLE_PARAMETERS', details: { params: ['pdf_scale', 'format'] } });
    expect(await errorOf({ pdf_width: '5in' })).toMatchObject({ code: 'INVALID_PARAMETER', details: { param: 'pdf_height' } });
    expect(await errorOf({ pdf_width: '300in', pdf_height: '5in' })).toMatchObject({ code: 'INVALID_PARAMETER', details: { param: 'pdf_width' } });
    expect(await errorOf({ pdf_margin_top: '1furlong' })).toMatchObject({ code: 'INVALID_PARAMETER', details: { param: 'pdf_margin_top' } });
  });
});
