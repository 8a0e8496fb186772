import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CaptureEngine } from '../../src/index.js';
import { createTestEngine } from '../helpers/engine.js';
import { decode, near } from '../helpers/pixels.js';
import { serveDirectory, startPageServer, type PageServer } from '../../fixtures/page-server.js';

/**
 * pdf.js's own viewer, from Debian's libjs-pdf (fetched by `npm run setup`, never installed). It
 * assigns `window.print` at start-up: a dialog guard that froze the page's globals made it throw,
 * and the viewer showed no document.
 */
const ROOT = new URL('../.artifacts/real-pages/pdfjs/', import.meta.url);
const VIEWER = '/usr/share/javascript/pdf/web/viewer.html';
const GREEN = '#00ff00';

let server: PageServer;
let engine: CaptureEngine;
let document: Buffer;
beforeAll(async () => {
  if (!existsSync(ROOT)) throw new Error('pdf.js missing: run `npm run setup` (scripts/fetch-real-pages.sh)');
  const files = serveDirectory(fileURLToPath(ROOT));
  server = await startPageServer((req, res, url) => {
    if (url.pathname === '/green.html') return void res.writeHead(200, { 'Content-Type': 'text/html' }).end(`<body style="margin:0;background:${GREEN}"></body>`);
    if (url.pathname === '/document.pdf') return void res.writeHead(200, { 'Content-Type': 'application/pdf' }).end(document);
    files(req, res, url);
  });
  engine = await createTestEngine({ concurrency: 1 });
  document = (await engine.capture({ url: server.url('/green.html'), format: 'pdf', pdf_print_background: true })).data as Buffer;
});
afterAll(async () => {
  await engine?.close();
  await server?.close();
});

describe('real pages: pdf.js viewer', () => {
  it('shows the document it is given, with the default waits', async () => {
    const shot = await engine.capture({ url: server.url(`${VIEWER}?file=/document.pdf#zoom=page-fit`), viewport_width: 800, viewport_height: 600 });
    const image = await decode(shot.data as Buffer);
    // The page is drawn on the viewer's canvas in the middle of the window, below the toolbar.
    expect(near(image.at(400, 320), GREEN, 8)).toBe(true);
  });
});
