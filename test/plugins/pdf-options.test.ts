import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CaptureEngine } from '../../src/index.js';
import { createTestEngine } from '../helpers/engine.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { decode, near } from '../helpers/pixels.js';
import { qpdfLookup, qpdfObjects } from '../helpers/pdf.js';

const RANGE_PAGES = 3;

/** What the PDF options refuse, and media_type (the PDFs themselves are read with poppler in test/adapters/documents.test.ts). */
let fixtures: FixtureServer;
let engine: CaptureEngine;

beforeAll(async () => {
  fixtures = await startFixtureServer();
  // Three pages a print: a document of eight is printed in three parts and joined.
  engine = await createTestEngine({ pdfRangePages: RANGE_PAGES });
});
afterAll(async () => {
  await engine?.close();
  await fixtures?.close();
});

const errorOf = (params: Record<string, unknown>): Promise<unknown> => engine.capture({ url: fixtures.url('/bands?count=6&band=500'), format: 'pdf', ...params }).then(() => undefined, (error: unknown) => error);

describe('PDF options', () => {
  it('refuses PDF options on other formats, half a custom size and sizes beyond 200 in', async () => {
    expect(await errorOf({ format: 'png', pdf_scale: 0.5 })).toMatchObject({ code: 'INCOMPATIBLE_PARAMETERS', details: { params: ['pdf_scale', 'format'] } });
    expect(await errorOf({ pdf_width: '5in' })).toMatchObject({ code: 'INVALID_PARAMETER', details: { param: 'pdf_height' } });
    expect(await errorOf({ pdf_width: '300in', pdf_height: '5in' })).toMatchObject({ code: 'INVALID_PARAMETER', details: { param: 'pdf_width' } });
    expect(await errorOf({ pdf_margin_top: '1furlong' })).toMatchObject({ code: 'INVALID_PARAMETER', details: { param: 'pdf_margin_top' } });
  });
});

describe('PDF options for documents people ship', () => {
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

describe('a long document, printed a few pages at a time and joined', () => {
  const CHAPTERS = 8;
  const chaptersHtml = (chapters: number): string => `<!doctype html><html lang="en"><head><title>Long</title></head><body>${Array.from(
    { length: chapters },
    (_, index) => `<section id="c${index + 1}" style="break-after: page"><h1>Chapter ${index + 1}</h1>${index === 0 ? `<a href="#c${CHAPTERS}">to the last chapter</a>` : ''}</section>`,
  ).join('')}</body></html>`;
  const html = chaptersHtml(CHAPTERS);
  const footer = '<div style="font-size: 10px">Page <span class="pageNumber"></span> of <span class="totalPages"></span></div>';
  const partsLeft = (): string[] => readdirSync(os.tmpdir()).filter((name) => /^capture-.*-parts-/.test(name));

  it("keeps the document's page numbers, its outline and its links across the parts", async () => {
    const scratch = mkdtempSync(path.join(os.tmpdir(), 'pdf-ranges-test-'));
    try {
      const file = path.join(scratch, 'long.pdf');
      const result = await engine.capture({ html, format: 'pdf', pdf_outline: true, pdf_footer_html: footer, pdf_margin_bottom: '1in' });
      writeFileSync(file, result.data as Buffer);
      const tool = (command: string, args: string[], after: string[] = []): string => spawnSync(command, [...args, file, ...after], { encoding: 'utf8' }).stdout;
      expect(tool('pdfinfo', []).match(/^Pages:\s+(\d+)/m)?.[1]).toBe(String(CHAPTERS));
      expect(spawnSync('qpdf', ['--check', file]).status).toBe(0);
      const pages = tool('pdftotext', ['-layout'], ['-']).split('\f').slice(0, CHAPTERS);
      expect(pages.map((text) => /Chapter (\d+)/.exec(text)?.[1])).toEqual(Array.from({ length: CHAPTERS }, (_, index) => String(index + 1)));
      expect(pages.map((text) => /Page (\d+) of (\d+)/.exec(text)?.slice(1).join('/'))).toEqual(Array.from({ length: CHAPTERS }, (_, index) => `${index + 1}/${CHAPTERS}`));
      const outline = (JSON.parse(tool('qpdf', ['--json', '--json-key=outlines'])) as { outlines: { title: string; destpageposfrom1: number }[] }).outlines;
      expect(outline.map((entry) => [entry.title, entry.destpageposfrom1])).toEqual(Array.from({ length: CHAPTERS }, (_, index) => [`Chapter ${index + 1}`, index + 1]));
      // The link on page 1 names a destination printed in the last part: it opens the last page.
      const { all, catalog } = qpdfObjects(tool('qpdf', ['--json', '--json-key=qpdf']));
      const pageRefs = (JSON.parse(tool('qpdf', ['--json', '--json-key=pages'])) as { pages: { object: string }[] }).pages.map((page) => page.object);
      const link = qpdfLookup(all, (qpdfLookup(all, pageRefs[0])['/Annots'] as string[])[0]);
      const target = qpdfLookup(all, catalog['/Dests'])[String(link['/Dest'])] as string[];
      expect(pageRefs.indexOf(String(target[0]))).toBe(CHAPTERS - 1);
      // Joined: the parts' structure trees are not carried (a whole print with an outline is tagged).
      expect(catalog['/StructTreeRoot']).toBeUndefined();
      // Two parts exactly: the third range starts past the end and ends the print.
      writeFileSync(file, (await engine.capture({ html: chaptersHtml(2 * RANGE_PAGES), format: 'pdf' })).data as Buffer);
      expect(tool('pdfinfo', []).match(/^Pages:\s+(\d+)/m)?.[1]).toBe(String(2 * RANGE_PAGES));
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
    expect(partsLeft()).toEqual([]);
  });

  it('holds pdf_max_pages over the whole document and leaves no part behind', async () => {
    const error = await engine.capture({ html, format: 'pdf', pdf_max_pages: RANGE_PAGES + 1 }).then(() => undefined, (caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', details: { param: 'pdf_max_pages' } });
    expect(partsLeft()).toEqual([]);
  });
});
