import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { unzipSync } from 'fflate';
import type { CaptureEngine } from '../../src/index.js';
import { createTestEngine } from '../helpers/engine.js';
import { qpdfLookup as lookup, qpdfObjects } from '../helpers/pdf.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { MAX_DOWNLOAD_BYTES } from '../../src/core/schema/download-params.js';

/**
 * The finishing stages of the pdf format on real Chromium, Ghostscript and qpdf, each file read
 * back with qpdf and poppler. No veraPDF here: these are the structural requirements of PDF/A
 * and PDF/UA that those tools can see, not a full validation.
 */
let engine: CaptureEngine;
let scratch: string;
let engineDir: string;

beforeAll(async () => {
  scratch = mkdtempSync(path.join(os.tmpdir(), 'pdf-finish-test-'));
  engineDir = mkdtempSync(path.join(scratch, 'engine-'));
  engine = await createTestEngine({ tempDir: engineDir });
});
afterAll(async () => {
  await engine?.close();
  rmSync(scratch, { recursive: true, force: true });
});

const PAGE = `<!doctype html><html lang="en"><head><title>Quarterly report</title></head><body>
<h1>Heading one</h1><p>Text with <a href="https://example.com/terms">a link</a>.</p>
<h2>Section two</h2><p style="break-before: page">Second page</p></body></html>`;

const print = async (params: Record<string, unknown>, html = PAGE): Promise<Buffer> => (await engine.capture({ html, format: 'pdf', ...params })).data as Buffer;
const errorOf = (params: Record<string, unknown>, html = PAGE): Promise<unknown> => print(params, html).then(() => undefined, (error: unknown) => error);

/** Runs a reading tool on the PDF (at `FILE` in `args`, else last); its stdout, or its stderr when it fails. */
function read(tool: string, pdf: Buffer, args: string[]): { ok: boolean; out: string } {
  const file = path.join(scratch, `${Math.random().toString(36).slice(2)}.pdf`);
  writeFileSync(file, pdf);
  const result = spawnSync(tool, args.includes('FILE') ? args.map((arg) => (arg === 'FILE' ? file : arg)) : [...args, file], { encoding: 'utf8' });
  return { ok: result.status === 0 || (tool === 'qpdf' && result.status === 3), out: result.status === 0 ? result.stdout : `${result.stdout}${result.stderr}` };
}

/** qpdf's JSON of the file's objects, and its catalog. */
const objects = (pdf: Buffer, password?: string): ReturnType<typeof qpdfObjects> => qpdfObjects(read('qpdf', pdf, ['--json', '--json-key=qpdf', ...(password ? [`--password=${password}`] : [])]).out);

describe('pdf_a', () => {
  it('makes a PDF/A-2b file: sRGB output intent, pdfaid 2/B in its XMP, every font embedded, outline, link and information kept', async () => {
    const pdf = await print({ pdf_a: 'PDF/A-2b', pdf_outline: true, pdf_author: 'Ada Lovelace' });
    const { all, catalog } = objects(pdf);
    const intents = catalog['/OutputIntents'] as unknown[];
    expect(intents).toHaveLength(1);
    const intent = lookup(all, intents[0]);
    expect(intent).toMatchObject({ '/S': '/GTS_PDFA1', '/OutputConditionIdentifier': 'u:sRGB' });
    expect(lookup(all, intent['/DestOutputProfile'])).toMatchObject({ '/N': 3 });
    const xmp = read('pdfinfo', pdf, ['-meta']).out;
    expect(xmp).toMatch(/pdfaid:part='2'/);
    expect(xmp).toMatch(/pdfaid:conformance='B'/);
    expect(xmp).toContain('Quarterly report');
    const fonts = read('pdffonts', pdf, []).out.split('\n').slice(2).filter((line) => line.trim() !== '');
    expect(fonts.length).toBeGreaterThan(0);
    // Columns: name type encoding emb sub uni object id; the emb column is the fourth from the end.
    for (const line of fonts) expect(line.trim().split(/\s+/).at(-5)).toBe('yes');
    const info = read('pdfinfo', pdf, []).out;
    expect(info).toMatch(/Author:\s+Ada Lovelace/);
    expect(info).toMatch(/Pages:\s+2/);
    const outlines = JSON.parse(read('qpdf', pdf, ['--json', '--json-key=outlines']).out) as { outlines: { title: string; kids: { title: string }[] }[] };
    expect(outlines.outlines.map((entry) => entry.title)).toEqual(['Heading one']);
    expect(outlines.outlines[0]?.kids.map((entry) => entry.title)).toEqual(['Section two']);
    expect(JSON.stringify(all)).toContain('u:https://example.com/terms');
    expect(read('qpdf', pdf, ['--check']).ok).toBe(true);
  });

  it('claims the part asked for: PDF/A-3b and PDF/A-1b (PDF 1.4)', async () => {
    const three = await print({ pdf_a: 'PDF/A-3b' });
    expect(read('pdfinfo', three, ['-meta']).out).toMatch(/pdfaid:part='3'/);
    const one = await print({ pdf_a: 'PDF/A-1b' });
    expect(read('pdfinfo', one, ['-meta']).out).toMatch(/pdfaid:part='1'/);
    expect(read('pdfinfo', one, []).out).toMatch(/PDF version:\s+1\.4/);
  });
});

describe('pdf_ua', () => {
  it('makes a tagged file with its language, its title displayed and pdfuaid 1 in its XMP', async () => {
    const pdf = await print({ pdf_ua: true });
    expect(read('pdfinfo', pdf, []).out).toMatch(/Tagged:\s+yes/);
    const xmp = read('pdfinfo', pdf, ['-meta']).out;
    expect(xmp).toMatch(/<pdfuaid:part>1<\/pdfuaid:part>/);
    expect(xmp).toContain('Quarterly report');
    const { catalog } = objects(pdf);
    expect(catalog['/Lang']).toBe('u:en');
    expect(catalog['/StructTreeRoot']).toBeDefined();
    expect(catalog['/ViewerPreferences']).toMatchObject({ '/DisplayDocTitle': true });
  });

  it('refuses a page without a title, naming pdf_ua; pdf_title gives it one', async () => {
    const untitled = '<html lang="en"><p>no title</p></html>';
    expect(await errorOf({ pdf_ua: true }, untitled)).toMatchObject({ code: 'INVALID_PARAMETER', details: { param: 'pdf_ua' } });
    expect(read('pdfinfo', await print({ pdf_ua: true, pdf_title: 'Named' }, untitled), ['-meta']).out).toContain('>Named<');
  });
});

describe('pdf_password, pdf_owner_password, pdf_permissions', () => {
  it('encrypts with AES-256: the file opens only with the password, and refuses printing and copying when not granted', async () => {
    const pdf = await print({ pdf_password: 'open sesame', pdf_owner_password: 'owner-secret', pdf_permissions: 'annotate' });
    expect(read('pdftotext', pdf, ['-q', '-upw', 'wrong', 'FILE', '-']).ok).toBe(false);
    expect(read('pdftotext', pdf, ['-q', 'FILE', '-']).ok).toBe(false);
    const shown = read('qpdf', pdf, ['--password=open sesame', '--show-encryption']).out;
    for (const line of ['R = 6', 'stream encryption method: AESv3', 'print low resolution: not allowed', 'print high resolution: not allowed', 'extract for any purpose: not allowed', 'modify other: not allowed', 'modify annotations: allowed']) {
      expect(shown).toContain(line);
    }
    expect(read('pdftotext', pdf, ['-upw', 'open sesame', 'FILE', '-']).out).toContain('Second page');
    expect(read('qpdf', pdf, ['--check']).ok).toBe(false);
    expect(read('qpdf', pdf, ['--password=open sesame', '--check']).ok).toBe(true);
  });

  it('grants every right when no permissions are given', async () => {
    const pdf = await print({ pdf_password: 'open sesame' });
    const shown = read('qpdf', pdf, ['--password=open sesame', '--show-encryption']).out;
    expect(shown).toMatch(/print high resolution: allowed/);
    expect(shown).toMatch(/extract for any purpose: allowed/);
  });

  it('refuses what cannot make a valid file, naming the parameters', async () => {
    expect(await errorOf({ pdf_a: 'PDF/A-2b', pdf_password: 'x' })).toMatchObject({ code: 'INCOMPATIBLE_PARAMETERS', details: { params: ['pdf_a', 'pdf_password'] } });
    expect(await errorOf({ pdf_a: 'PDF/A-2b', pdf_ua: true })).toMatchObject({ code: 'INCOMPATIBLE_PARAMETERS', details: { params: ['pdf_a', 'pdf_ua'] } });
    expect(await errorOf({ pdf_permissions: 'print' })).toMatchObject({ code: 'INCOMPATIBLE_PARAMETERS', details: { params: ['pdf_permissions', 'pdf_owner_password'] } });
    expect(await errorOf({ pdf_permissions: 'print,fly', pdf_owner_password: 'o' })).toMatchObject({ code: 'INVALID_PARAMETER', details: { param: 'pdf_permissions' } });
    expect(await errorOf({ pdf_password: 'same', pdf_owner_password: 'same' })).toMatchObject({ code: 'INCOMPATIBLE_PARAMETERS', details: { params: ['pdf_owner_password', 'pdf_password'] } });
    expect(await errorOf({ pdf_a: 'PDF/A-4' })).toMatchObject({ code: 'INVALID_PARAMETER', details: { param: 'pdf_a' } });
    expect(await errorOf({ format: 'png', pdf_a: 'PDF/A-2b' })).toMatchObject({ code: 'INCOMPATIBLE_PARAMETERS', details: { params: ['pdf_a', 'format'] } });
  });

  it('refuses pdf_rotate_pages without pdf_rotate and an angle that is not a quarter turn', async () => {
    expect(await errorOf({ pdf_rotate_pages: '1' })).toMatchObject({ code: 'INCOMPATIBLE_PARAMETERS', details: { params: ['pdf_rotate_pages', 'pdf_rotate'] } });
    expect(await errorOf({ pdf_rotate: 45 })).toMatchObject({ code: 'INVALID_PARAMETER', details: { param: 'pdf_rotate' } });
  });

  it('leaves no temp dir behind', () => {
    const left = readdirSync(engineDir).filter((name) => name.startsWith('pdf-'));
    expect(left).toEqual([]);
  });
});

describe('pdf_rotate, pdf_linearize', () => {
  it('turns the pages asked for, and linearizes, in one qpdf pass with the encryption', async () => {
    const pdf = await print({ pdf_rotate: 90, pdf_rotate_pages: '2', pdf_linearize: true, pdf_password: 'p' });
    const info = read('pdfinfo', pdf, ['-upw', 'p', '-f', '1', '-l', '2']).out;
    expect(info).toMatch(/Page\s+1 rot:\s+0/);
    expect(info).toMatch(/Page\s+2 rot:\s+90/);
    expect(info).toMatch(/Optimized:\s+yes/);
    expect(info).toMatch(/Encrypted:\s+yes/);
    const all = read('pdfinfo', await print({ pdf_rotate: 270 }), ['-f', '1', '-l', '2']).out;
    expect(all).toMatch(/Page\s+1 rot:\s+270/);
    expect(all).toMatch(/Page\s+2 rot:\s+270/);
    expect(all).toMatch(/Optimized:\s+no/);
  });

  it('pdf_flatten leaves no annotation (the link is gone, its text kept)', async () => {
    const annotations = (pdf: Buffer): unknown[] => Object.values(objects(pdf).all).filter((object) => object.value?.['/Subtype'] === '/Link');
    expect(annotations(await print({}))).toHaveLength(1);
    const flat = await print({ pdf_flatten: true });
    expect(annotations(flat)).toEqual([]);
    expect(read('qpdf', flat, ['--json', '--json-key=qpdf']).out).not.toContain('/Annots');
    expect(read('pdftotext', flat, ['FILE', '-']).out).toContain('a link');
    expect(read('qpdf', flat, ['--check']).ok).toBe(true);
  });
});

describe('pdf_split, pdf_split_unify', () => {
  const THREE = '<title>Three</title>' + ['One', 'Two', 'Three'].map((word) => `<p style="break-after: page">Page ${word}</p>`).join('');
  const pagesOf = (pdf: Uint8Array): number => Number(read('qpdf', Buffer.from(pdf), ['--show-npages']).out.trim());
  const textOf = (pdf: Uint8Array): string => read('pdftotext', Buffer.from(pdf), ['FILE', '-']).out;

  it('answers a ZIP of one PDF per range, or per page; unified, one PDF of the pages in the order asked', async () => {
    const ranges = await engine.capture({ html: THREE, format: 'pdf', pdf_split: '1-2, 3' });
    expect(ranges).toMatchObject({ contentType: 'application/zip', extension: 'zip' });
    const files = unzipSync(ranges.data as Buffer);
    expect(Object.keys(files)).toEqual(['pages-1-2.pdf', 'pages-3.pdf']);
    expect(pagesOf(files['pages-1-2.pdf'] as Uint8Array)).toBe(2);
    expect(pagesOf(files['pages-3.pdf'] as Uint8Array)).toBe(1);
    expect(textOf(files['pages-3.pdf'] as Uint8Array)).toContain('Page Three');
    expect(read('pdfinfo', Buffer.from(files['pages-3.pdf'] as Uint8Array), []).out).toMatch(/Title:\s+Three/);
    const each = unzipSync((await engine.capture({ html: THREE, format: 'pdf', pdf_split: 'pages' })).data as Buffer);
    expect(Object.keys(each)).toEqual(['pages-1.pdf', 'pages-2.pdf', 'pages-3.pdf']);
    expect(Object.values(each).map(pagesOf)).toEqual([1, 1, 1]);
    const unified = await engine.capture({ html: THREE, format: 'pdf', pdf_split: '3,1', pdf_split_unify: true });
    expect(unified.contentType).toBe('application/pdf');
    expect(pagesOf(unified.data as Buffer)).toBe(2);
    expect(textOf(unified.data as Buffer).indexOf('Page Three')).toBeLessThan(textOf(unified.data as Buffer).indexOf('Page One'));
  });

  it("answers Gotenberg's split scenarios (pdfengines_split.feature, its 3-page PDF) with the files and pages they assert", async () => {
    const split = async (params: Record<string, unknown>): Promise<[string, number, string][]> => {
      const files = unzipSync((await engine.capture({ html: THREE, format: 'pdf', ...params })).data as Buffer);
      return Object.entries(files).map(([name, pdf]) => [name, pagesOf(pdf), textOf(pdf).trim().split(/\s*\f\s*/).join(' | ')]);
    };
    // splitMode=intervals, splitSpan=2: pages_3_0.pdf of 2 pages, pages_3_1.pdf of 1.
    expect(await split({ pdf_split: 'every:2' })).toEqual([['pages-1-2.pdf', 2, 'Page One | Page Two'], ['pages-3.pdf', 1, 'Page Three']]);
    // splitMode=pages, splitSpan=2-: one file a page from page 2.
    expect(await split({ pdf_split: 'pages:2-' })).toEqual([['pages-2.pdf', 1, 'Page Two'], ['pages-3.pdf', 1, 'Page Three']]);
    // splitSpan=2-z (qpdf's way; pdftk's 2-end is the same, test/core/pdf-split.test.ts) with splitUnify=true: one PDF of pages 2 and 3.
    const unified = (await engine.capture({ html: THREE, format: 'pdf', pdf_split: '2-z', pdf_split_unify: true })).data as Buffer;
    expect([pagesOf(unified), textOf(unified).trim().split(/\s*\f\s*/)]).toEqual([2, ['Page Two', 'Page Three']]);
    expect(await errorOf({ pdf_split: 'every:4', pdf_split_unify: true })).toMatchObject({ code: 'INCOMPATIBLE_PARAMETERS', details: { params: ['pdf_split_unify', 'pdf_split'] } });
  });

  it('encrypts and linearizes each file of a split, with the rights asked for; the pages are turned in the document first', async () => {
    const files = unzipSync((await engine.capture({ html: THREE, format: 'pdf', pdf_split: 'every:2', pdf_password: 'open sesame', pdf_owner_password: 'owner', pdf_permissions: 'copy', pdf_linearize: true, pdf_rotate: 90, pdf_rotate_pages: '3' })).data as Buffer);
    expect(Object.keys(files)).toEqual(['pages-1-2.pdf', 'pages-3.pdf']);
    for (const [name, pdf] of Object.entries(files)) {
      const file = Buffer.from(pdf);
      expect(read('pdftotext', file, ['-q', 'FILE', '-']).ok).toBe(false);
      const shown = read('qpdf', file, ['--password=open sesame', '--show-encryption']).out;
      for (const line of ['R = 6', 'stream encryption method: AESv3', 'print low resolution: not allowed', 'extract for any purpose: allowed']) expect(shown).toContain(line);
      const info = read('pdfinfo', file, ['-upw', 'open sesame']).out;
      expect(info).toMatch(/Optimized:\s+yes/);
      expect(info).toMatch(name === 'pages-3.pdf' ? /Page rot:\s+90/ : /Page rot:\s+0/);
    }
    expect(read('pdftotext', Buffer.from(files['pages-3.pdf'] as Uint8Array), ['-upw', 'open sesame', 'FILE', '-']).out).toContain('Page Three');
  });

  it('refuses ranges that are not and pages the PDF has not, naming the parameters', async () => {
    expect(await errorOf({ pdf_split: '2-1' })).toMatchObject({ code: 'INVALID_PARAMETER', details: { param: 'pdf_split' } });
    expect(await errorOf({ pdf_split: '1,x' })).toMatchObject({ code: 'INVALID_PARAMETER', details: { param: 'pdf_split' } });
    expect(await errorOf({ pdf_split: Array.from({ length: 101 }, (_, index) => index + 1).join(',') })).toMatchObject({ code: 'INVALID_PARAMETER', details: { param: 'pdf_split' } });
    expect(await errorOf({ pdf_split: '2-5' })).toMatchObject({ code: 'INVALID_PARAMETER', details: { param: 'pdf_split' }, message: expect.stringContaining('page 5 asked for, the PDF has 2') });
    expect(await errorOf({ pdf_split_unify: true })).toMatchObject({ code: 'INCOMPATIBLE_PARAMETERS', details: { params: ['pdf_split_unify', 'pdf_split'] } });
  });
});

describe('pdf_optimize, pdf_image_dpi', () => {
  /** The distinct image objects of a PDF, and the resolutions they are drawn at (pdfimages -list: object id, x-ppi). */
  const images = (pdf: Buffer): { objects: number; ppi: number[] } => {
    const rows = read('pdfimages', pdf, ['-list']).out.trim().split('\n').slice(2).map((line) => line.trim().split(/\s+/));
    return { objects: new Set(rows.map((row) => row[10])).size, ppi: rows.map((row) => Number(row[12])) };
  };

  /** What PDF/A asks that a Ghostscript pass could lose: the sRGB output intent, pdfaid in the XMP, every font embedded; and the file reads. */
  const expectPdfA = (pdf: Buffer, part: string): void => {
    const { all, catalog } = objects(pdf);
    const listed = catalog['/OutputIntents'];
    const intents = (Array.isArray(listed) ? listed : lookup(all, listed)) as unknown[];
    expect(intents).toHaveLength(1);
    expect(lookup(all, intents[0])).toMatchObject({ '/S': '/GTS_PDFA1', '/OutputConditionIdentifier': 'u:sRGB' });
    expect(read('pdfinfo', pdf, ['-meta']).out).toMatch(new RegExp(`pdfaid:part(='|>)${part}`));
    for (const line of read('pdffonts', pdf, []).out.split('\n').slice(2).filter((row) => row.trim() !== '')) expect(line.trim().split(/\s+/).at(-5)).toBe('yes');
    expect(read('qpdf', pdf, ['--check']).ok).toBe(true);
  };

  it('stores an image drawn from several addresses once, smaller, and resamples images above pdf_image_dpi; with pdf_a too, which it stays', async () => {
    // Noise (a linear congruential sequence's high bytes), so that deflate cannot make a copy of the logo small.
    let seed = 54;
    const noise = Buffer.from(Array.from({ length: 160 * 80 * 3 }, () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) >>> 24));
    const logo = (await sharp(noise, { raw: { width: 160, height: 80, channels: 3 } }).png().toBuffer()).toString('base64');
    // Chromium stores an image once per address: the header's one address is one object, each page's own address one more.
    const pages = Array.from({ length: 8 }, (_, i) => `<p style="break-after: page"><img src="data:image/png;copy=${i};base64,${logo}" style="width:80px;height:40px"> Page ${i + 1}</p>`).join('');
    const params = { pdf_margin_top: '1in', pdf_header_html: `<img src="data:image/png;base64,${logo}" style="width:80px;height:40px">` };
    const html = `<!doctype html><html lang="en"><head><title>Logo on every page</title></head><body>${pages}</body></html>`;
    const plain = await print(params, html);
    const optimized = await print({ ...params, pdf_optimize: true }, html);
    expect(images(plain).objects).toBe(9);
    expect(images(optimized).objects).toBe(1);
    expect(optimized.length).toBeLessThan(plain.length / 2);
    expect(read('pdfinfo', optimized, []).out).toMatch(/Pages:\s+8/);
    expect(read('pdftotext', optimized, ['FILE', '-']).out).toContain('Page 8');
    expect(read('qpdf', optimized, ['--check']).ok).toBe(true);
    // The 160 px logo drawn 80 CSS px wide is well above 96 ppi; at pdf_image_dpi=96 it is resampled to 96.
    expect(Math.min(...images(optimized).ppi)).toBeGreaterThan(120);
    const resampled = images(await print({ ...params, pdf_optimize: true, pdf_image_dpi: 96 }, html));
    expect(resampled.objects).toBe(1);
    expect(Math.max(...resampled.ppi)).toBeLessThanOrEqual(97);
    // With pdf_a, in PDF/A's own Ghostscript pass: resampled (which PDF/A alone does not do), packed into object streams, still PDF/A-2b.
    const archived = await print({ ...params, pdf_optimize: true, pdf_image_dpi: 96, pdf_a: 'PDF/A-2b' }, html);
    expect(images(archived).objects).toBe(1);
    expect(Math.max(...images(archived).ppi)).toBeLessThanOrEqual(97);
    expect(read('qpdf', archived, ['--show-xref']).out).toMatch(/: compressed;/);
    expectPdfA(archived, '2');
    // PDF/A-1 forbids object streams: the streams are deflated again, the objects not packed.
    const first = await print({ pdf_optimize: true, pdf_a: 'PDF/A-1b' }, '<title>One</title><p>PDF/A-1b</p>');
    expect(read('qpdf', first, ['--show-xref']).out).not.toMatch(/: compressed;/);
    expectPdfA(first, '1');
  });

  it('refuses what its Ghostscript pass cannot keep, naming the parameters', async () => {
    expect(await errorOf({ pdf_optimize: true, pdf_ua: true })).toMatchObject({ code: 'INCOMPATIBLE_PARAMETERS', details: { params: ['pdf_optimize', 'pdf_ua'] } });
    expect(await errorOf({ pdf_image_dpi: 96 })).toMatchObject({ code: 'INCOMPATIBLE_PARAMETERS', details: { params: ['pdf_image_dpi', 'pdf_optimize'] } });
    expect(await errorOf({ pdf_optimize: true, pdf_image_dpi: 10 })).toMatchObject({ code: 'INVALID_PARAMETER', details: { param: 'pdf_image_dpi' } });
  });
});

describe('pdf_attachments by URL', () => {
  const CSV = 'id,total\n42,19.99\n';
  const NOTES = '{"note":"fetched"}';
  let fixtures: FixtureServer;
  beforeAll(async () => {
    fixtures = await startFixtureServer({
      '/files/report.csv': (_req, res) => res.writeHead(200, { 'Content-Type': 'text/csv; charset=utf-8' }).end(CSV),
      // No type said: the name's is taken.
      '/files/notes.json': (_req, res) => res.writeHead(200).end(NOTES),
      '/files/big.bin': (_req, res) => res.writeHead(200, { 'Content-Length': String(MAX_DOWNLOAD_BYTES + 1) }).end(),
    });
  });
  afterAll(() => fixtures?.close());

  it('fetches each URL through the guard and embeds it under its last segment with the MIME type of the answer, else of the name', async () => {
    const pdf = await print({ pdf_attachments: `${fixtures.url('/files/report.csv')}, ${fixtures.url('/files/notes.json')}` });
    expect(read('qpdf', pdf, ['--show-attachment=report.csv', 'FILE']).out).toBe(CSV);
    expect(read('qpdf', pdf, ['--show-attachment=notes.json', 'FILE']).out).toBe(NOTES);
    const { all, catalog } = objects(pdf);
    expect(catalog['/AF']).toHaveLength(2);
    expect(Object.values(all).map((object) => object.stream?.dict['/Subtype']).filter(Boolean)).toEqual(expect.arrayContaining(['/text/csv', '/application/json']));
  });

  it('names the entry that failed: an error status, a file over the bound, a URL without a file name', async () => {
    const csv = fixtures.url('/files/report.csv');
    expect(await errorOf({ pdf_attachments: `${csv},${fixtures.url('/files/missing.txt')}` })).toMatchObject({ code: 'CAPTURE_FAILED', message: expect.stringContaining('pdf_attachments[1]: '), details: { reason: 'download', param: 'pdf_attachments[1]' } });
    expect(await errorOf({ pdf_attachments: fixtures.url('/files/big.bin') })).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', details: { param: 'pdf_attachments[0]', limit: MAX_DOWNLOAD_BYTES } });
    expect(await errorOf({ pdf_attachments: fixtures.url('/') })).toMatchObject({ code: 'INVALID_PARAMETER', details: { param: 'pdf_attachments' }, message: expect.stringContaining('pdf_attachments[0]') });
    expect(await errorOf({ pdf_attachments: `${csv},${fixtures.url('/other/report.csv')}` })).toMatchObject({ code: 'INVALID_PARAMETER', message: expect.stringContaining("'report.csv' is named twice") });
  });
});
