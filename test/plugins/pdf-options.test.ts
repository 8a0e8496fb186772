import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CaptureEngine } from '../../src/index.js';
import { createTestEngine } from '../helpers/engine.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { readPdf } from '../helpers/pdf.js';
import { decode, near } from '../helpers/pixels.js';
import { PDFDocument } from '@cantoo/pdf-lib';

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

describe('PDF options for documents people ship', () => {
  it('prints the whole document on one page as tall as it is', async () => {
    const pages = await pdf({ pdf_single_page: true, pdf_margin_top: '0', pdf_margin_bottom: '0' });
    expect(pages).toHaveLength(1);
    // 6 bands of 500 CSS px at 96 px to the inch: 3,000 px, 2,250 pt, and a pixel more.
    expect(pages[0]?.[1]).toBeGreaterThanOrEqual(2250);
    expect(pages[0]?.[1]).toBeLessThanOrEqual(2252);
    expect((await pdf({ pdf_single_page: true, pdf_landscape: true }))).toHaveLength(1);
  });

  it('writes a tagged PDF, and an outline from the headings', async () => {
    const headings = await engine.capture({ url: fixtures.url('/headings'), format: 'pdf', pdf_outline: true });
    const text = (headings.data as Buffer).toString('latin1');
    expect(text).toContain('/StructTreeRoot');
    expect(text).toMatch(/\/Outlines/);
    const plain = await engine.capture({ url: fixtures.url('/headings'), format: 'pdf' });
    expect((plain.data as Buffer).toString('latin1')).not.toMatch(/\/Outlines/);
    const tagged = await engine.capture({ url: fixtures.url('/headings'), format: 'pdf', pdf_tagged: true });
    expect((tagged.data as Buffer).toString('latin1')).toContain('/StructTreeRoot');
  });
});

describe('PDF document information', () => {
  it('writes Title, Author, Subject and Keywords, and keeps the tags and the outline', async () => {
    const result = await engine.capture({
      url: fixtures.url('/headings'),
      format: 'pdf',
      pdf_outline: true,
      pdf_title: 'Quarterly report',
      pdf_author: 'Ada Lovelace',
      pdf_subject: 'Sales',
      pdf_keywords: 'sales, q3 ,2026',
    });
    const data = result.data as Buffer;
    expect(result.size).toBe(data.length);
    const document = await PDFDocument.load(data, { updateMetadata: false });
    expect([document.getTitle(), document.getAuthor(), document.getSubject(), document.getKeywords()]).toEqual(['Quarterly report', 'Ada Lovelace', 'Sales', 'sales q3 2026']);
    const text = data.toString('latin1');
    expect(text).toContain('/StructTreeRoot');
    expect(text).toMatch(/\/Outlines/);
    // Without them, Chromium's own Title (the page's <title>) stays.
    const plain = await PDFDocument.load((await engine.capture({ url: fixtures.url('/headings'), format: 'pdf' })).data as Buffer, { updateMetadata: false });
    expect([plain.getTitle(), plain.getAuthor()]).toEqual(['Report', undefined]);
  });
});

describe('media_type', () => {
  it('renders a screenshot in print media when asked, in screen media by default', async () => {
    const shot = async (params: Record<string, unknown>): Promise<[number, number, number]> => {
      const result = await engine.capture({ url: fixtures.url('/print-media'), viewport_width: 200, viewport_height: 100, ...params });
      return (await decode(result.data as Buffer)).at(100, 50);
    };
    expect(near(await shot({}), '#ff0000')).toBe(true);
    expect(near(await shot({ media_type: 'print' }), '#0000ff')).toBe(true);
    expect(near(await shot({ media_type: 'screen' }), '#ff0000')).toBe(true);
  });
});
