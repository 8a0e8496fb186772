import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { request } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { PDFArray, PDFDict, PDFDocument, PDFName, PDFString, PDFHexString } from '@cantoo/pdf-lib';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { isBuilt, killLeftoverBuiltProcesses, startBuiltService, type BuiltService } from '../helpers/built-service.js';
import { decode, MAGIC, near, type DecodedImage } from '../helpers/pixels.js';
import { qpdfLookup, qpdfObjects } from '../helpers/pdf.js';
import { invoiceXml } from '../helpers/invoice-xml.js';

// A test that fails before stopping its services leaves them running: kill what is left.
afterAll(killLeftoverBuiltProcesses);

const KEY = 'ce_test_documents_0123456789abcdef';
/** The machine's monospace font file (setup installs DejaVu or Liberation), uploaded as a web font. */
const MONO_FONT = execFileSync('fc-match', ['-f', '%{file}', 'monospace'], { encoding: 'utf8' }).trim();
const FILE_LIMIT = 1024 * 1024;
const TOTAL_LIMIT = 2 * 1024 * 1024;
const FILE_COUNT_LIMIT = 5;
const SIGNER = 'Capture Engine Test Signer';
const SIGNING_PASSPHRASE = 'test-passphrase';

let fixtures: FixtureServer;
/** Requests the fixture server saw on the paths a document must never reach. */
const loopbackHits: string[] = [];
let service: BuiltService;
let dir: string;

beforeAll(async () => {
  if (!isBuilt()) return;
  fixtures = await startFixtureServer({
    '/secret.png': (req, res) => {
      loopbackHits.push(req.url ?? '');
      res.writeHead(200, { 'Content-Type': 'image/png' }).end(readFileSync(MONO_FONT).subarray(0, 10));
    },
    '/secret.css': (req, res) => {
      loopbackHits.push(req.url ?? '');
      res.writeHead(200, { 'Content-Type': 'text/css' }).end('body{background:#ff0000}');
    },
  });
  dir = mkdtempSync(path.join(inject('testTempRoot'), 'documents-'));
  // The operator's signing key for pdf_sign: a self-signed certificate made here, never kept in the repository.
  const [key, certificate] = [path.join(dir, 'signing-key.pem'), path.join(dir, 'signing-cert.pem')];
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', certificate, '-days', '1', '-subj', `/CN=${SIGNER}`], { stdio: 'ignore' });
  execFileSync('openssl', ['pkcs12', '-export', '-inkey', key, '-in', certificate, '-out', path.join(dir, 'signing.p12'), '-passout', `pass:${SIGNING_PASSPHRASE}`]);
  // Private networks are not allowed: what the documents reference on loopback must be refused.
  service = await startBuiltService(
    'node',
    {
      CAPTURE_API_KEYS: `${KEY}:PRO`,
      CAPTURE_LOG_LEVEL: 'warn',
      CAPTURE_UPLOAD_FILE_BYTES: String(FILE_LIMIT),
      CAPTURE_UPLOAD_TOTAL_BYTES: String(TOTAL_LIMIT),
      CAPTURE_UPLOAD_FILES: String(FILE_COUNT_LIMIT),
      CAPTURE_PDF_SIGN_P12: path.join(dir, 'signing.p12'),
      CAPTURE_PDF_SIGN_PASSPHRASE: SIGNING_PASSPHRASE,
    },
    ['--storage-dir', path.join(dir, 'files')],
  );
});
afterAll(async () => {
  await service?.stop();
  await fixtures?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const captureUrl = (): string => `${service.origin}/api/v1/capture`;

async function postJson(body: Record<string, unknown>): Promise<Response> {
  return fetch(captureUrl(), { method: 'POST', headers: { 'X-API-Key': KEY, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
}

async function postForm(form: FormData): Promise<Response> {
  return fetch(captureUrl(), { method: 'POST', headers: { 'X-API-Key': KEY }, body: form });
}

async function bytesOf(response: Response): Promise<Buffer> {
  const body = Buffer.from(await response.arrayBuffer());
  if (response.status !== 200) throw new Error(`${response.status}: ${body.toString('utf8')}`);
  return body;
}

/** Sends only the head of a multipart upload declaring `length` bytes, and reads the answer. */
function declaredUpload(length: number): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(service.origin);
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, path: '/api/v1/capture', method: 'POST', headers: { 'X-API-Key': KEY, 'Content-Type': 'multipart/form-data; boundary=x', 'Content-Length': String(length) } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.flushHeaders();
  });
}

/** A solid PNG of one colour. */
function solidPng(colour: string, size = 4): Promise<Buffer> {
  return sharp({ create: { width: size, height: size, channels: 3, background: colour } }).png().toBuffer();
}

function upload(name: string, content: Buffer | string, type = 'application/octet-stream'): [string, Blob, string] {
  return ['files', new Blob([typeof content === 'string' ? content : new Uint8Array(content)], { type }), name];
}

/** The longest run of pixels near `colour` going down (vertical) or across from any pixel. */
function longestRun(image: DecodedImage, colour: string, direction: 'down' | 'across'): number {
  let best = 0;
  const [outer, inner] = direction === 'down' ? [image.width, image.height] : [image.height, image.width];
  for (let a = 0; a < outer; a++) {
    let run = 0;
    for (let b = 0; b < inner; b++) {
      const [x, y] = direction === 'down' ? [a, b] : [b, a];
      run = near(image.at(x, y), colour, 6) ? run + 1 : 0;
      best = Math.max(best, run);
    }
  }
  return best;
}

function countNear(image: DecodedImage, colour: string, tolerance: number): number {
  let count = 0;
  for (let y = 0; y < image.height; y++) for (let x = 0; x < image.width; x++) if (near(image.at(x, y), colour, tolerance)) count++;
  return count;
}

/** Writes a PDF and runs a reading tool (poppler's, qpdf) on it, the file at `FILE` in `args`: its exit status and output. */
function readWith(tool: string, pdf: Buffer, args: string[]): { status: number | null; stdout: string; stderr: string } {
  const file = path.join(dir, `${Math.random().toString(36).slice(2)}.pdf`);
  writeFileSync(file, pdf);
  try {
    const { status, stdout, stderr } = spawnSync(tool, args.map((arg) => (arg === 'FILE' ? file : arg)), { encoding: 'utf8' });
    return { status, stdout, stderr };
  } finally {
    rmSync(file, { force: true });
  }
}

/** Runs one of poppler's tools on a PDF: what it printed, or the test fails. */
function poppler(tool: 'pdfinfo' | 'pdftotext' | 'pdfimages' | 'pdffonts', pdf: Buffer, ...args: string[]): string {
  const { status, stdout, stderr } = readWith(tool, pdf, [...args, 'FILE', ...(tool === 'pdftotext' ? ['-'] : [])]);
  if (status !== 0) throw new Error(`${tool} failed: ${stderr}`);
  return stdout;
}

function pdfInfo(pdf: Buffer): Record<string, string> {
  return Object.fromEntries(
    poppler('pdfinfo', pdf)
      .split('\n')
      .map((line) => /^([^:]+):\s*(.*)$/.exec(line))
      .filter((match): match is RegExpExecArray => match !== null)
      .map((match) => [match[1] as string, match[2] as string]),
  );
}

/** `Page size` of pdfinfo in whole points: [width, height]. */
function pageSize(pdf: Buffer): [number, number] {
  const match = /([\d.]+) x ([\d.]+) pts/.exec(pdfInfo(pdf)['Page size'] ?? '');
  if (!match) throw new Error('no page size');
  return [Math.round(Number(match[1])), Math.round(Number(match[2]))];
}

const pages = (pdf: Buffer): number => Number(pdfInfo(pdf).Pages);
const pageText = (pdf: Buffer, page: number): string => poppler('pdftotext', pdf, '-f', String(page), '-l', String(page), '-layout');

/** A document of `count` pages, one section each. */
const sections = (count: number, extra = ''): string =>
  `<!doctype html><html><head><title>Sections</title><style>body{margin:0;font:20px sans-serif} section{break-after:page}${extra}</style></head><body>${Array.from(
    { length: count },
    (_, i) => `<section><h1>Section ${i + 1}</h1></section>`,
  ).join('')}</body></html>`;

/** The first word's box as pdftotext -bbox gives it, in points. */
function firstWordBox(pdf: Buffer): { xMin: number; yMin: number } {
  const match = /<word xMin="([\d.]+)" yMin="([\d.]+)"/.exec(poppler('pdftotext', pdf, '-bbox', '-f', '1', '-l', '1'));
  if (!match) throw new Error('no word');
  return { xMin: Number(match[1]), yMin: Number(match[2]) };
}

/** Titles of the PDF's outline (bookmarks), depth first. */
async function outlineTitles(pdf: Buffer): Promise<string[]> {
  const document = await PDFDocument.load(pdf, { updateMetadata: false });
  const titles: string[] = [];
  const walk = (item: PDFDict | undefined): void => {
    for (let node = item; node; node = node.lookupMaybe(PDFName.of('Next'), PDFDict)) {
      const title = node.lookupMaybe(PDFName.of('Title'), PDFString, PDFHexString);
      if (title) titles.push(title.decodeText());
      walk(node.lookupMaybe(PDFName.of('First'), PDFDict));
    }
  };
  const outlines = document.catalog.lookupMaybe(PDFName.of('Outlines'), PDFDict);
  walk(outlines?.lookupMaybe(PDFName.of('First'), PDFDict));
  return titles;
}

describe.skipIf(!isBuilt())('documents in, images and PDFs out (npm start)', () => {
  it('takes HTML in a JSON body and in a form body', async () => {
    const fromJson = await bytesOf(await postJson({ html: '<body style="margin:0;background:#1a2b3c"></body>', viewport_width: 300, viewport_height: 200 }));
    expect(fromJson.subarray(0, 8)).toEqual(MAGIC.png);
    const json = await decode(fromJson);
    expect([json.width, json.height]).toEqual([300, 200]);
    expect(near(json.at(150, 100), '#1a2b3c')).toBe(true);

    const form = new URLSearchParams({ html: '<body style="margin:0;background:#3c2b1a"></body>', format: 'jpg', viewport_width: '320', viewport_height: '240' });
    const fromForm = await bytesOf(await fetch(captureUrl(), { method: 'POST', headers: { 'X-API-Key': KEY }, body: form }));
    expect(fromForm.subarray(0, 3)).toEqual(MAGIC.jpg);
    expect(near((await decode(fromForm)).at(160, 120), '#3c2b1a')).toBe(true);
  });

  it('takes an uploaded index.html with an image, a stylesheet and a web font by relative paths', async () => {
    const index = `<!doctype html><html><head><link rel="stylesheet" href="css/style.css"></head><body>
      <img src="images/logo.png" style="position:absolute;left:0;top:0;width:100px;height:100px">
      <span id="wide" style="position:absolute;left:0;top:150px;font:40px Uploaded,serif;line-height:50px;background:#ff00ff;color:#ff00ff">iiiiiiiiiiiiiiiiiiii</span></body></html>`;
    const css = "@font-face{font-family:Uploaded;src:url('../fonts/mono.ttf')} body{margin:0;background:#00aa00}";
    const form = new FormData();
    form.append(...upload('index.html', index, 'text/html'));
    form.append(...upload('css/style.css', css));
    form.append(...upload('images/logo.png', await solidPng('#0000ff')));
    form.append(...upload('fonts/mono.ttf', readFileSync(MONO_FONT)));
    form.append('viewport_width', '800');
    form.append('viewport_height', '300');
    const image = await decode(await bytesOf(await postForm(form)));
    expect(near(image.at(50, 50), '#0000ff')).toBe(true); // the image
    expect(near(image.at(400, 20), '#00aa00')).toBe(true); // the stylesheet
    // 20 monospace i's at 40px are 480px wide; in the serif fallback, about 220px.
    expect(near(image.at(400, 175), '#ff00ff')).toBe(true); // the font
    expect(near(image.at(520, 175), '#00aa00')).toBe(true);
  });

  it('renders Markdown: a table with borders and highlighted code; a template replaces the page', async () => {
    const markdown = ['# Report', '', '| Item | Price |', '|------|------:|', '| Tea | 3 |', '| Cake | 4 |', '', '```js', 'const total = function () { return 7; };', '```', '', '- [x] paid'].join('\n');
    const image = await decode(await bytesOf(await postJson({ markdown, viewport_width: 900, viewport_height: 600 })));
    // Cell borders (#d1d9e0): vertical runs only the table draws (heading rules are horizontal).
    expect(longestRun(image, '#d1d9e0', 'down')).toBeGreaterThanOrEqual(30);
    // highlight.js's GitHub theme: keywords in #d73a49.
    expect(countNear(image, '#d73a49', 40)).toBeGreaterThan(20);

    const template = '<html><body style="margin:0;background:#123456;color:#ffffff">{{ content }}</body></html>';
    const templated = await decode(await bytesOf(await postJson({ markdown: '# Hi', markdown_template: template, viewport_width: 300, viewport_height: 200 })));
    expect(near(templated.at(290, 190), '#123456')).toBe(true);

    const pdf = await bytesOf(await postJson({ markdown, format: 'pdf' }));
    const text = pageText(pdf, 1);
    expect(text).toMatch(/Tea\s+3/);
    expect(text).toContain('const total = function () { return 7; };');
    expect(pdfInfo(pdf).Title).toBe('Report');
  });

  // Issue 50, item 8: the docs' `--data-urlencode markdown@README.md` (115 KB) was a bare 413, and the
  // README printed to PDF lost the right-hand columns of its tables.
  it('answers a Markdown over the body limit with the multipart way, which then prints it', async () => {
    const markdown = `# Long\n\n${'A paragraph of the document, long enough to add up. '.repeat(2000)}\n\nThe end.`;
    const form = await fetch(captureUrl(), { method: 'POST', headers: { 'X-API-Key': KEY }, body: new URLSearchParams({ markdown, format: 'pdf' }) });
    expect(form.status).toBe(413);
    const refusal = (await form.json()) as { error: string; limit: number; upload_limit: number };
    expect(refusal).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', limit: 65536, upload_limit: FILE_LIMIT });
    expect(refusal.error).toContain("multipart/form-data, a field (curl -F 'markdown=<README.md')");
    const multipart = new FormData();
    multipart.append('markdown', markdown);
    multipart.append('format', 'pdf');
    const pdf = await bytesOf(await postForm(multipart));
    expect(poppler('pdftotext', pdf)).toContain('The end.');
  });

  it('fits a wide table to the page of a PDF, every cell\'s words printed within the page', async () => {
    const rows = Array.from({ length: 8 }, (_, i) => `| \`parameter_name_${i}\` | string of at most 67108864 characters | none | What parameter ${i} does, in a sentence long enough to need several lines: last${i} |`);
    // One cell holds what no line can break: the table as wide as it was cut at the right margin.
    rows.push('| `device` | string | none | A device of https://github.com/microsoft/playwright/blob/main/packages/playwright-core/src/server/deviceDescriptorsSource.json, its viewport: last8 |');
    // And a table of fourteen columns, as the tiers' is.
    const many = Array.from({ length: 14 }, (_, i) => `column${i}`);
    const manyRows = [`| ${many.join(' | ')} |`, `|${'---|'.repeat(14)}`, `| ${many.map((name) => `${name}value`).join(' | ')} |`];
    const markdown = ['| name | allowed | default | meaning |', '|---|---|---|---|', ...rows, '', ...manyRows].join('\n');
    const pdf = await bytesOf(await postJson({ markdown, format: 'pdf' }));
    const text = poppler('pdftotext', pdf);
    for (let i = 0; i <= 8; i++) expect(text).toContain(`last${i}`);
    // Prose breaks between words; code and links may break anywhere, and lose nothing.
    expect(text).toMatch(/What parameter 0 does, in a\s+sentence/);
    for (let i = 0; i < 8; i++) expect(text.replace(/\s+/g, '')).toContain(`parameter_name_${i}`);
    expect(text).toContain('several');
    // Its last column's words are broken where they must be, and printed.
    expect(text).toMatch(/mn1\s*3/);
    expect(text.replace(/\s+/g, '')).toContain('deviceDescriptorsSource.json');
    const width = pageSize(pdf)[0];
    const rights = [...poppler('pdftotext', pdf, '-bbox').matchAll(/<word xMin="[\d.]+" yMin="[\d.]+" xMax="([\d.]+)"/g)].map((match) => Number(match[1]));
    expect(rights.length).toBeGreaterThan(100);
    expect(Math.max(...rights)).toBeLessThanOrEqual(width);
  });

  it('never lets a document reach loopback: its image, stylesheet and header image are left out', async () => {
    const secret = fixtures.url('/secret.png');
    const html = `<body style="margin:0;background:#00ff00"><img src="${secret}"><link rel="stylesheet" href="${fixtures.url('/secret.css')}"><iframe src="${fixtures.url('/secret.css')}"></iframe></body>`;
    const image = await decode(await bytesOf(await postJson({ html, viewport_width: 300, viewport_height: 200 })));
    expect(near(image.at(250, 150), '#00ff00')).toBe(true);
    const pdf = await bytesOf(await postJson({ html, format: 'pdf', pdf_header_html: `<img src="${secret}">`, pdf_margin_top: '1in' }));
    expect(pages(pdf)).toBe(1);
    expect(loopbackHits).toEqual([]);
  });

  it('refuses uploads over the limits with 413 and keeps serving', async () => {
    const oneFile = new FormData();
    oneFile.append(...upload('index.html', '<p>x</p>'));
    oneFile.append(...upload('big.bin', Buffer.alloc(FILE_LIMIT + 1)));
    const tooBig = await postForm(oneFile);
    expect(tooBig.status).toBe(413);
    expect(await tooBig.json()).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', limit: FILE_LIMIT });

    // A body declared over the limit is answered before it is sent (test/http/multipart-body.test.ts reads one that grows past it).
    const tooMuch = await declaredUpload(TOTAL_LIMIT + 1);
    expect(tooMuch.status).toBe(413);
    expect(JSON.parse(tooMuch.body)).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', limit: TOTAL_LIMIT });

    const many = new FormData();
    many.append(...upload('index.html', '<p>x</p>'));
    for (let i = 0; i < FILE_COUNT_LIMIT; i++) many.append(...upload(`${i}.css`, 'p{}'));
    const tooMany = await postForm(many);
    expect(tooMany.status).toBe(413);
    expect(await tooMany.json()).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', limit: FILE_COUNT_LIMIT });

    const noIndex = new FormData();
    noIndex.append(...upload('style.css', 'p{}'));
    const refused = await postForm(noIndex);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ code: 'INVALID_PARAMETER', param: 'files' });

    const both = await postJson({ html: '<p>x</p>', url: 'https://example.com' });
    expect(both.status).toBe(400);
    expect(await both.json()).toMatchObject({ code: 'INVALID_PARAMETER', param: 'html' });
    expect((await postJson({ html: '<body style="background:#000"></body>', viewport_width: 200, viewport_height: 200 })).status).toBe(200);
  });

  it('prints paper, custom and landscape sizes, scale, page ranges and a single page', async () => {
    expect(pageSize(await bytesOf(await postJson({ html: sections(1), format: 'pdf' })))).toEqual([596, 842]); // A4
    expect(pageSize(await bytesOf(await postJson({ html: sections(1), format: 'pdf', pdf_paper: 'Letter', pdf_landscape: true })))).toEqual([792, 612]);
    // 100 mm is 283.46 pt; Chromium lays paper out in whole CSS pixels.
    const [customWidth, customHeight] = pageSize(await bytesOf(await postJson({ html: sections(1), format: 'pdf', pdf_width: '100mm', pdf_height: '6in' })));
    expect(Math.abs(customWidth - 283.5)).toBeLessThanOrEqual(1);
    expect(customHeight).toBe(432);

    const long = `<body style="font:24px/40px sans-serif">${Array.from({ length: 80 }, (_, i) => `<div>Line ${i + 1}</div>`).join('')}</body>`;
    const full = pages(await bytesOf(await postJson({ html: long, format: 'pdf' })));
    const half = pages(await bytesOf(await postJson({ html: long, format: 'pdf', pdf_scale: 0.5 })));
    expect(full).toBeGreaterThanOrEqual(3);
    expect(half).toBeLessThanOrEqual(Math.ceil(full / 2));

    const ranged = await bytesOf(await postJson({ html: sections(5), format: 'pdf', pdf_page_ranges: '2-3, 5' }));
    expect(pages(ranged)).toBe(3);
    expect([1, 2, 3].map((page) => /Section (\d)/.exec(pageText(ranged, page))?.[1])).toEqual(['2', '3', '5']);
    const outOfRange = await postJson({ html: sections(2), format: 'pdf', pdf_page_ranges: '7' });
    expect(outOfRange.status).toBe(400);
    expect(await outOfRange.json()).toMatchObject({ code: 'INVALID_PARAMETER', param: 'pdf_page_ranges' });

    const single = await bytesOf(await postJson({ html: long, format: 'pdf', pdf_single_page: true }));
    expect(pages(single)).toBe(1);
    expect(pageSize(single)[1]).toBeGreaterThan(80 * 30);
    expect(pageText(single, 1)).toContain('Line 80');
  });

  it('prints header and footer templates with page numbers and an inlined image on every page', async () => {
    const form = new FormData();
    form.append(...upload('index.html', sections(3)));
    form.append(...upload('logo.png', await solidPng('#ff0000', 8)));
    form.append('format', 'pdf');
    form.append('pdf_margin_top', '1in');
    form.append('pdf_margin_bottom', '1in');
    form.append('pdf_header_html', '<div style="font-size:12px;width:100%;text-align:center"><img src="logo.png" style="width:16px;height:16px"> Acme <span class="title"></span></div>');
    form.append('pdf_footer_html', '<div style="font-size:12px;width:100%;text-align:center">Page <span class="pageNumber"></span> of <span class="totalPages"></span></div>');
    const pdf = await bytesOf(await postForm(form));
    expect(pages(pdf)).toBe(3);
    for (const page of [1, 2, 3]) {
      const text = pageText(pdf, page);
      expect(text).toContain('Acme Sections');
      expect(text).toContain(`Page ${page} of 3`);
      expect(text).toContain(`Section ${page}`);
    }
    const images = poppler('pdfimages', pdf, '-list').trim().split('\n').slice(2);
    expect(images.map((line) => Number(line.trim().split(/\s+/)[0]))).toEqual([1, 2, 3]);
  });

  it('sets margins, outline, metadata and tags', async () => {
    const narrow = firstWordBox(await bytesOf(await postJson({ html: sections(1), format: 'pdf', pdf_margin_left: '0.5in', pdf_margin_top: '0.5in' })));
    const wide = firstWordBox(await bytesOf(await postJson({ html: sections(1), format: 'pdf', pdf_margin_left: '2in', pdf_margin_top: '5cm' })));
    expect(narrow.xMin).toBeGreaterThanOrEqual(35.9);
    expect(narrow.xMin).toBeLessThan(40);
    expect(wide.xMin).toBeGreaterThanOrEqual(143.9);
    expect(wide.xMin).toBeLessThan(148);
    // 5 cm is 141.7 pt, laid out in whole CSS pixels (0.75 pt each).
    expect(Math.abs(wide.yMin - narrow.yMin - (141.7 - 36))).toBeLessThanOrEqual(1);

    const html = '<html><head><title>Page title</title></head><body><h1>Intro</h1><p>a</p><h2>Details</h2><p>b</p><h1>End</h1></body></html>';
    const pdf = await bytesOf(
      await postJson({ html, format: 'pdf', pdf_outline: true, pdf_title: 'Annual report', pdf_author: 'Ada Lovelace', pdf_subject: 'Numbers', pdf_keywords: 'report, 2026' }),
    );
    const info = pdfInfo(pdf);
    expect(info).toMatchObject({ Title: 'Annual report', Author: 'Ada Lovelace', Subject: 'Numbers', Keywords: 'report, 2026', Tagged: 'yes' });
    expect(await outlineTitles(pdf)).toEqual(['Intro', 'Details', 'End']);
    expect(pdfInfo(await bytesOf(await postJson({ html, format: 'pdf', pdf_tagged: true }))).Tagged).toBe('yes');
    expect(pdfInfo(await bytesOf(await postJson({ html, format: 'pdf' }))).Tagged).toBe('no');

    const mismatched = await postJson({ html, format: 'png', pdf_title: 'x' });
    expect(mismatched.status).toBe(400);
    expect(await mismatched.json()).toMatchObject({ code: 'INCOMPATIBLE_PARAMETERS', params: ['pdf_title', 'format'] });
  });
});

/** `qpdf --json`'s objects of a PDF (opened with `password` when given), and its catalog. */
const qpdfJson = (pdf: Buffer, password?: string): ReturnType<typeof qpdfObjects> =>
  qpdfObjects(readWith('qpdf', pdf, ['--json', '--json-key=qpdf', ...(password ? [`--password=${password}`] : []), 'FILE']).stdout);

/** Whether qpdf --check finds the file sound (3: warnings only). */
const qpdfChecks = (pdf: Buffer, ...args: string[]): boolean => [0, 3].includes(readWith('qpdf', pdf, [...args, '--check', 'FILE']).status ?? -1);

/** The information pdfinfo prints of a file opened with `password`. */
const lockedInfo = (pdf: Buffer, password: string, ...args: string[]): string => poppler('pdfinfo', pdf, '-upw', password, ...args);

// Issue 54: the finishing stages as the built service runs them, each file read back with qpdf and poppler.
describe.skipIf(!isBuilt())('PDF finishing over HTTP (npm start)', () => {
  it('makes a signed PDF/A-2b keeping the outline and non-ASCII document information, in the information dictionary and the XMP alike', async () => {
    const html = '<html lang="fr"><head><title>Page</title></head><body><h1>Résumé</h1><p>a</p><h2>Détails</h2><p>b</p></body></html>';
    const title = 'Rapport annuel — Über café';
    const pdf = await bytesOf(await postJson({ html, format: 'pdf', pdf_a: 'PDF/A-2b', pdf_sign: true, pdf_outline: true, pdf_title: title, pdf_author: 'Zoë Ådahl', pdf_keywords: 'plain, ascii' }));
    expect(pdfInfo(pdf)).toMatchObject({ Title: title, Author: 'Zoë Ådahl', Keywords: 'plain, ascii' });
    const xmp = poppler('pdfinfo', pdf, '-meta');
    expect(xmp).toMatch(/pdfaid:part='2'/);
    expect(xmp).toMatch(/pdfaid:conformance='B'/);
    // Each property once, with the dictionary's value: Ghostscript's copies replaced, not doubled.
    expect(xmp.match(/<dc:title>/g)).toHaveLength(1);
    expect(xmp).toContain(`<dc:title><rdf:Alt><rdf:li xml:lang="x-default">${title}</rdf:li></rdf:Alt></dc:title>`);
    expect(xmp).toContain('<dc:creator><rdf:Seq><rdf:li>Zoë Ådahl</rdf:li></rdf:Seq></dc:creator>');
    expect(xmp.match(/<pdf:Keywords>plain, ascii<\/pdf:Keywords>/g)).toHaveLength(1);
    const { all, catalog } = qpdfJson(pdf);
    const intents = catalog['/OutputIntents'] as unknown[];
    expect(intents).toHaveLength(1);
    expect(qpdfLookup(all, intents[0])).toMatchObject({ '/S': '/GTS_PDFA1' });
    const trailer = (JSON.parse(readWith('qpdf', pdf, ['--json', '--json-key=qpdf', 'FILE']).stdout) as { qpdf: [unknown, { trailer: { value: Record<string, unknown> } }] }).qpdf[1].trailer.value;
    expect(trailer['/ID']).toHaveLength(2);
    const fonts = poppler('pdffonts', pdf).split('\n').slice(2).filter((line) => line.trim() !== '');
    expect(fonts.length).toBeGreaterThan(0);
    for (const line of fonts) expect(line.trim().split(/\s+/).at(-5)).toBe('yes');
    expect(await outlineTitles(pdf)).toEqual(['Résumé', 'Détails']);
    expect(qpdfChecks(pdf)).toBe(true);
    // Signed last, by the operator's key, over the whole file: poppler checks the CMS against the bytes it covers.
    const signature = readWith('pdfsig', pdf, ['FILE']).stdout;
    expect(signature).toContain(`Signer Certificate Common Name: ${SIGNER}`);
    expect(signature).toContain('Signature Validation: Signature is Valid.');
    expect(signature).toContain('Total document signed');
    // One bit changed in the header's binary comment: the file still reads, its digest no longer matches.
    const tampered = Buffer.from(pdf);
    tampered[11] = (tampered[11] as number) ^ 1;
    expect(readWith('pdfsig', tampered, ['FILE']).stdout).toContain('Signature Validation: Digest Mismatch.');
  });

  it('makes a Factur-X invoice with a further attachment from the upload, each extracted byte for byte', async () => {
    const xml = invoiceXml('urn:cen.eu:en16931:2017');
    const terms = 'Conditions générales: payable à 30 jours.\n';
    const form = new FormData();
    form.append(...upload('index.html', '<html lang="de"><head><title>Rechnung 42</title></head><body><h1>Rechnung RE-2026-0042</h1></body></html>', 'text/html'));
    form.append(...upload('factur-x.xml', xml));
    form.append(...upload('docs/terms.txt', terms));
    form.append('format', 'pdf');
    form.append('pdf_einvoice', 'factur-x');
    form.append('pdf_attachments', 'docs/terms.txt');
    const pdf = await bytesOf(await postForm(form));
    // Listed in the name tree's order.
    expect(readWith('pdfdetach', pdf, ['-list', 'FILE']).stdout).toBe('2 embedded files\n1: docs/terms.txt\n2: factur-x.xml\n');
    expect(readWith('qpdf', pdf, ['--list-attachments', 'FILE']).stdout).toMatch(/docs\/terms\.txt -> /);
    expect(readWith('qpdf', pdf, ['--show-attachment=factur-x.xml', 'FILE']).stdout).toBe(xml);
    expect(readWith('qpdf', pdf, ['--show-attachment=docs/terms.txt', 'FILE']).stdout).toBe(terms);
    const { all, catalog } = qpdfJson(pdf);
    expect(catalog['/AF']).toHaveLength(2);
    const specs = Object.values(all).filter((object) => object.value?.['/Type'] === '/Filespec').map((object) => object.value ?? {});
    expect(specs.find((spec) => spec['/UF'] === 'u:docs/terms.txt')).toMatchObject({ '/AFRelationship': '/Unspecified' });
    expect(Object.values(all).map((object) => object.stream?.dict['/Subtype']).filter(Boolean)).toEqual(expect.arrayContaining(['/text/xml', '/text/plain']));
    const xmp = poppler('pdfinfo', pdf, '-meta');
    expect(xmp).toMatch(/pdfaid:part='3'/);
    expect(xmp).toContain('<fx:DocumentFileName>factur-x.xml</fx:DocumentFileName>');
    expect(qpdfChecks(pdf)).toBe(true);
  });

  it('encrypts, marks and linearizes in one request: the file opens with its password only and refuses printing', async () => {
    // Marks level, so that pdftotext reads them as words.
    const pdf = await bytesOf(
      await postJson({ html: sections(2), format: 'pdf', pdf_password: 'open sesame', pdf_owner_password: 'owner-secret', pdf_permissions: 'copy', pdf_watermark: 'DRAFT', pdf_watermark_angle: 0, pdf_stamp: 'PAID', pdf_stamp_pages: '2', pdf_linearize: true }),
    );
    expect(readWith('pdftotext', pdf, ['-q', 'FILE', '-']).status).not.toBe(0);
    expect(qpdfChecks(pdf)).toBe(false);
    const shown = readWith('qpdf', pdf, ['--password=open sesame', '--show-encryption', 'FILE']).stdout;
    for (const line of ['R = 6', 'stream encryption method: AESv3', 'print low resolution: not allowed', 'extract for any purpose: allowed', 'modify other: not allowed']) expect(shown).toContain(line);
    const text = (page: number): string => poppler('pdftotext', pdf, '-upw', 'open sesame', '-f', String(page), '-l', String(page));
    expect(text(1)).toContain('DRAFT');
    expect(text(1)).not.toContain('PAID');
    expect(text(2)).toMatch(/PAID[\s\S]*DRAFT|DRAFT[\s\S]*PAID/);
    expect(lockedInfo(pdf, 'open sesame')).toMatch(/Optimized:\s+yes/);
    expect(qpdfChecks(pdf, '--password=open sesame')).toBe(true);
  });

  it('merges html, Markdown, an uploaded page and an uploaded PDF into one finished PDF: each part\'s pages in order under its outline entry', async () => {
    const cover = await bytesOf(await postJson({ html: sections(2), format: 'pdf' }));
    const form = new FormData();
    const parts = [{ html: sections(3), params: { pdf_title: 'Three sections' } }, { markdown: '# Notes\n\nOne page of Markdown.' }, { file: 'annex.html', params: { pdf_landscape: true } }, { file: 'cover.pdf' }];
    for (const [name, value] of Object.entries({ pdf_merge: JSON.stringify(parts), pdf_stamp: 'MERGED', pdf_title: 'The whole' })) form.append(name, value);
    form.append(...upload('annex.html', '<!doctype html><title>Annex</title><link rel="stylesheet" href="annex.css"><p>Annex text</p>', 'text/html'));
    form.append(...upload('annex.css', 'p { font-size: 30px }', 'text/css'));
    form.append(...upload('cover.pdf', cover, 'application/pdf'));
    const pdf = await bytesOf(await postForm(form));
    const document = await PDFDocument.load(pdf, { updateMetadata: false });
    const refs = document.getPages().map((page) => page.ref.toString());
    const entries: [string, number][] = [];
    const outlines = document.catalog.lookup(PDFName.of('Outlines'), PDFDict);
    for (let item = outlines.lookupMaybe(PDFName.of('First'), PDFDict); item; item = item.lookupMaybe(PDFName.of('Next'), PDFDict)) {
      const destination = item.lookup(PDFName.of('Dest'), PDFArray);
      entries.push([item.lookup(PDFName.of('Title'), PDFHexString).decodeText(), refs.indexOf(destination.get(0).toString()) + 1]);
    }
    // 3 sections, 1 page of Markdown, the landscape annex, the 2-page upload as it was.
    expect(entries).toEqual([['Three sections', 1], ['Notes', 4], ['Annex', 5], ['cover.pdf', 6]]);
    expect(pages(pdf)).toBe(7);
    const sizes = document.getPages().map((page) => page.getWidth() > page.getHeight());
    expect(sizes).toEqual([false, false, false, false, true, false, false]);
    expect([pageText(pdf, 3), pageText(pdf, 4), pageText(pdf, 5), pageText(pdf, 7)]).toEqual([expect.stringContaining('Section 3'), expect.stringContaining('One page of Markdown'), expect.stringContaining('Annex text'), expect.stringContaining('Section 2')]);
    // The finishing and the document information are the merged document's: the stamp on every page.
    for (const page of [1, 6]) expect(pageText(pdf, page)).toContain('MERGED');
    expect(pdfInfo(pdf).Title).toBe('The whole');
  });

  it('holds a merge to the limits and checks of a capture: the egress guard for each url, pdf_max_pages for the whole, layout-only part params', async () => {
    const refusedWith = async (response: Response): Promise<unknown> => [response.status, await response.json()];
    const hits = loopbackHits.length;
    expect(await refusedWith(await postJson({ pdf_merge: [{ html: '<p>x</p>' }, { url: fixtures.url('/secret.css') }] }))).toMatchObject([403, { code: 'URL_NOT_ALLOWED' }]);
    expect(loopbackHits.length).toBe(hits);
    expect(await refusedWith(await postJson({ pdf_merge: [{ html: sections(2) }, { html: sections(2) }], pdf_max_pages: 3 }))).toMatchObject([413, { code: 'PAYLOAD_TOO_LARGE', param: 'pdf_max_pages' }]);
    expect(await refusedWith(await postJson({ pdf_merge: [{ html: '<p>x</p>' }, { html: '<p>y</p>' }], pdf_max_bytes: 1024 }))).toMatchObject([413, { code: 'PAYLOAD_TOO_LARGE', param: 'pdf_max_bytes', max: 1024 }]);
    expect(await refusedWith(await postJson({ pdf_merge: [{ html: '<p>x</p>' }, { html: '<p>y</p>', params: { javascript: false } }] }))).toMatchObject([400, { code: 'INVALID_PARAMETER', param: 'pdf_merge[1].params.javascript' }]);
    // Refused by Chromium as it prints the part: named by its place all the same.
    expect(await refusedWith(await postJson({ pdf_merge: [{ html: '<p>x</p>' }, { html: sections(1), params: { pdf_page_ranges: '3' } }] }))).toMatchObject([400, { code: 'INVALID_PARAMETER', param: 'pdf_merge[1].params.pdf_page_ranges' }]);
    const notPdf = new FormData();
    notPdf.append('pdf_merge', JSON.stringify([{ html: '<p>x</p>' }, { file: 'fake.pdf' }]));
    notPdf.append(...upload('fake.pdf', 'not a PDF at all', 'application/pdf'));
    expect(await refusedWith(await postForm(notPdf))).toMatchObject([400, { code: 'INVALID_PARAMETER', param: 'pdf_merge[1].file' }]);
  });

  it('splits into the asked ranges: a ZIP, or with response_type=json the stored files and their pages; each file signed', async () => {
    const zipped = await postJson({ html: sections(3), format: 'pdf', pdf_split: '1-2,3' });
    expect(zipped.headers.get('content-type')).toBe('application/zip');
    const entries = unzipSync(await bytesOf(zipped));
    expect(Object.keys(entries)).toEqual(['pages-1-2.pdf', 'pages-3.pdf']);
    expect(Object.values(entries).map((pdf) => pages(Buffer.from(pdf)))).toEqual([2, 1]);
    const answer = (await (await postJson({ html: sections(3), format: 'pdf', pdf_split: '3,1-2', response_type: 'json' })).json()) as { url: string; files: { url: string; pages: string }[] };
    expect(answer.files.map((file) => file.pages)).toEqual(['3', '1-2']);
    // The OpenAPI document describes both answers: the ZIP, and every key of the JSON, its files' too.
    type OpenApi = { paths: Record<string, { get: { responses: Record<string, { content: Record<string, unknown> }> } }>; components: { schemas: Record<string, { properties: Record<string, { items?: { properties: object } }> }> } };
    const openapi = (await (await fetch(`${service.origin}/api/v1/openapi.json`, { headers: { 'X-API-Key': KEY } })).json()) as OpenApi;
    expect(Object.keys(openapi.paths['/v1/capture']?.get.responses['200']?.content ?? {})).toContain('application/zip');
    const described = openapi.components.schemas.CaptureResult?.properties ?? {};
    expect(Object.keys(answer).filter((key) => !(key in described))).toEqual([]);
    expect(Object.keys(described.files?.items?.properties ?? {})).toEqual(Object.keys(answer.files[0] ?? {}));
    const stored = await Promise.all(answer.files.map(async (file) => bytesOf(await fetch(new URL(file.url, service.origin), { headers: { 'X-API-Key': KEY } }))));
    expect(stored.map(pages)).toEqual([1, 2]);
    expect(pageText(stored[0] as Buffer, 1)).toContain('Section 3');
    expect(Object.keys(unzipSync(await bytesOf(await fetch(new URL(answer.url, service.origin), { headers: { 'X-API-Key': KEY } }))))).toEqual(['pages-3.pdf', 'pages-1-2.pdf']);
    // Each file of a split is signed on its own: pdfsig finds one valid signature over the whole of each.
    const signed = unzipSync(await bytesOf(await postJson({ html: sections(3), format: 'pdf', pdf_split: 'every:2', pdf_sign: true })));
    expect(Object.keys(signed)).toEqual(['pages-1-2.pdf', 'pages-3.pdf']);
    for (const pdf of Object.values(signed)) {
      const signature = readWith('pdfsig', Buffer.from(pdf), ['FILE']).stdout;
      expect(signature).toContain('Signature Validation: Signature is Valid.');
      expect(signature).toContain('Total document signed');
    }
    const beyond = await postJson({ html: sections(3), format: 'pdf', pdf_split: '2-4' });
    expect([beyond.status, await beyond.json()]).toMatchObject([400, { code: 'INVALID_PARAMETER', param: 'pdf_split' }]);
  });

  it('stores and caches a PDF over 64 MiB that stays in its temporary file: the same bytes answered, stored and served from the cache', async () => {
    // Six pages of canvas noise, which no stream filter makes smaller: about 72 MB of images in the PDF.
    const noise = `<style>@page { margin: 0 } body { margin: 0 } canvas { display: block; width: 100vw; height: 100vh; break-after: page }</style><body><script>
      for (let i = 0; i < 6; i++) {
        const canvas = document.body.appendChild(document.createElement('canvas'));
        canvas.width = canvas.height = 2000;
        const context = canvas.getContext('2d');
        const image = context.createImageData(2000, 2000);
        const pixels = new Uint32Array(image.data.buffer);
        for (let p = 0; p < pixels.length; p++) pixels[p] = (Math.random() * 0x1000000) | 0xff000000;
        context.putImageData(image, 0, 0);
      }</script>`;
    const digest = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');
    const first = await postJson({ html: noise, format: 'pdf', cache: true });
    const printed = await bytesOf(first);
    expect(printed.length).toBeGreaterThan(64 * 1024 * 1024);
    expect([first.headers.get('x-cache'), Number(first.headers.get('content-length')), printed.subarray(0, 5).toString()]).toEqual(['MISS', printed.length, '%PDF-']);
    expect(printed.subarray(-1024).toString('latin1')).toMatch(/%%EOF\s*$/);
    expect(pages(printed)).toBe(6);
    const again = await postJson({ html: noise, format: 'pdf', cache: true, response_type: 'json' });
    const answer = (await again.json()) as { url: string; size: number };
    expect([again.headers.get('x-cache'), answer.size]).toEqual(['HIT', printed.length]);
    const stored = await bytesOf(await fetch(new URL(answer.url, service.origin), { headers: { 'X-API-Key': KEY } }));
    const cached = await bytesOf(await postJson({ html: noise, format: 'pdf', cache: true }));
    expect([digest(stored), digest(cached)]).toEqual([digest(printed), digest(printed)]);
  });

  it('refuses finishing parameters that cannot be done with 400 naming them, and attachments beyond the bound', async () => {
    const refusedWith = async (response: Response): Promise<unknown> => [response.status, await response.json()];
    expect(await refusedWith(await postJson({ html: '<p>x</p>', format: 'pdf', pdf_owner_password: 'o', pdf_permissions: 'print,fly' }))).toMatchObject([400, { code: 'INVALID_PARAMETER', param: 'pdf_permissions' }]);
    expect(await refusedWith(await postJson({ html: '<p>x</p>', format: 'pdf', pdf_a: 'PDF/A-2b', pdf_password: 'x' }))).toMatchObject([400, { code: 'INCOMPATIBLE_PARAMETERS', params: ['pdf_a', 'pdf_password'] }]);
    expect(await refusedWith(await postJson({ html: '<p>x</p>', format: 'pdf', pdf_attachments: 'terms.txt' }))).toMatchObject([400, { code: 'INCOMPATIBLE_PARAMETERS', params: ['pdf_attachments', 'files'] }]);
    const withFiles = (params: Record<string, string>): FormData => {
      const form = new FormData();
      form.append(...upload('index.html', '<p>x</p>', 'text/html'));
      form.append(...upload('terms.txt', 'terms'));
      for (const [name, value] of Object.entries({ format: 'pdf', ...params })) form.append(name, value);
      return form;
    };
    expect(await refusedWith(await postForm(withFiles({ pdf_attachments: 'terms.txt, missing.txt' })))).toMatchObject([400, { code: 'INVALID_PARAMETER', param: 'pdf_attachments' }]);
    expect(await refusedWith(await postForm(withFiles({ pdf_attachments: 'terms.txt,terms.txt' })))).toMatchObject([400, { code: 'INVALID_PARAMETER', param: 'pdf_attachments' }]);
    const tooMany = Array.from({ length: 21 }, (_, i) => `file${i}.txt`).join(',');
    const overBound = (await refusedWith(await postForm(withFiles({ pdf_attachments: tooMany })))) as [number, { error: string }];
    expect(overBound).toMatchObject([400, { code: 'INVALID_PARAMETER', param: 'pdf_attachments' }]);
    expect(overBound[1].error).toContain('at most 20');
    expect(await refusedWith(await postForm(withFiles({ pdf_attachments: 'terms.txt', pdf_a: 'PDF/A-2b' })))).toMatchObject([400, { code: 'INCOMPATIBLE_PARAMETERS', params: ['pdf_attachments', 'pdf_a'] }]);
    expect(await refusedWith(await postJson({ html: '<p>x</p>', format: 'pdf', pdf_sign: true, pdf_password: 'x' }))).toMatchObject([400, { code: 'INCOMPATIBLE_PARAMETERS', params: ['pdf_sign', 'pdf_password'] }]);
    expect(await refusedWith(await postForm(withFiles({ pdf_einvoice: 'factur-x' })))).toMatchObject([400, { code: 'INVALID_PARAMETER', param: 'pdf_einvoice' }]);
    // An attachment's URL is judged like a target: loopback is refused before anything is fetched.
    const hits = loopbackHits.length;
    expect(await refusedWith(await postJson({ html: '<p>x</p>', format: 'pdf', pdf_attachments: fixtures.url('/secret.css') }))).toMatchObject([403, { code: 'URL_NOT_ALLOWED', param: 'pdf_attachments[0]' }]);
    expect(loopbackHits.length).toBe(hits);
  });
});
