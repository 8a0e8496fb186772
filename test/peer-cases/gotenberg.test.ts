import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { CaptureEngine, CaptureInput } from '../../src/index.js';
import { createTestEngine } from '../helpers/engine.js';
import { html, startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { decode, near } from '../helpers/pixels.js';

/**
 * Gotenberg 8's Chromium scenarios (test/integration/features/chromium_*.feature at gotenberg/gotenberg),
 * translated to our parameters: what someone moving from Gotenberg's routes expects (issue 51).
 * Each test is named after its scenario.
 */
const RED = '#ff0000';
const GREEN = '#00ff00';

let fixtures: FixtureServer;
let engine: CaptureEngine;
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(path.join(inject('testTempRoot'), 'gotenberg-'));
  fixtures = await startFixtureServer({
    // feature-rich-html's wait: `globalVar` turns 'ready' well after load (and after the settle step).
    '/ready-later': (_req, res) =>
      html(res, `<body style="height:100vh;background:${RED}"><script>var globalVar = 'notReady'; setTimeout(() => { window.globalVar = 'ready'; document.body.style.background = '${GREEN}'; }, 1500);</script></body>`),
  });
  engine = await createTestEngine({ timeoutMs: 15_000 });
});
afterAll(async () => {
  await engine?.close();
  await fixtures?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** What poppler's pdfinfo (`Pages`, `Page size` in points) or pdftotext (the text of every page) says of a PDF. */
function poppler(tool: 'pdfinfo' | 'pdftotext', pdf: Buffer): string {
  const file = path.join(dir, `${Math.random().toString(36).slice(2)}.pdf`);
  writeFileSync(file, pdf);
  return execFileSync(tool, tool === 'pdftotext' ? [file, '-'] : [file], { encoding: 'utf8' });
}
const pageCount = (pdf: Buffer): number => Number(/^Pages:\s+(\d+)/m.exec(poppler('pdfinfo', pdf))?.[1]);
const pageSize = (pdf: Buffer): [number, number] => {
  const [, width, height] = /^Page size:\s+([\d.]+) x ([\d.]+) pts/m.exec(poppler('pdfinfo', pdf)) ?? [];
  return [Number(width), Number(height)];
};

/** testdata/pages-12-html: twelve headings, each forcing a page break after it. */
const PAGES_12 = `<!doctype html><html lang="en"><head><title>Pages 12</title><style>.page-break-after { page-break-after: always; }</style></head><body>
  ${Array.from({ length: 12 }, (_, i) => `<h1 class="page-break-after">Page ${i + 1}</h1>`).join('\n  ')}
</body></html>`;
/** testdata/wide-table-html: one row much wider than tall. */
const WIDE_TABLE = `<!doctype html><html lang="en"><head><meta charset="utf-8" /><title>Wide table</title><style>
  html, body { margin: 0; padding: 0; } table { border-collapse: collapse; white-space: nowrap; } td { border: 1px solid #000; padding: 8px 24px; }
</style></head><body><table><tr>${Array.from({ length: 12 }, (_, i) => `<td>Column ${i + 1}</td>`).join('')}</tr></table></body></html>`;

const colourAt = async (path: string, params: Omit<CaptureInput, 'url'> = {}) => {
  const result = await engine.capture({ url: fixtures.url(path), viewport_width: 200, viewport_height: 100, ...params });
  return (await decode(result.data as Buffer)).at(100, 50);
};

describe('Gotenberg: POST /forms/chromium/convert/html', () => {
  it('gotenberg: POST /forms/chromium/convert/html (Wait For Thenable Expression)', async () => {
    // A promise that resolves to false is not met: its resolved value gates the capture.
    expect(near(await colourAt('/ready-later', { wait_for_function: "(async () => window.globalVar === 'ready')()" }), GREEN)).toBe(true);
  });

  // feature-rich-html links doesnotexist.css, a file the upload does not have: a failed load, as
  // Chromium's net::ERR_FILE_NOT_FOUND is for Gotenberg's files, never an HTTP status.
  const missingAsset = [{ name: 'index.html', content: '<!doctype html><link rel="stylesheet" href="doesnotexist.css"><body style="background:#00ff00"></body>' }];

  it('gotenberg: POST /forms/chromium/convert/html (Fail On Resource Loading Failed)', async () => {
    const refused = await engine.capture({ files: missingAsset, format: 'pdf', fail_on_resource_failed: true }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toMatchObject({ code: 'CAPTURE_REJECTED', details: { reason: 'resource_failed' } });
    expect(JSON.stringify(refused)).toContain('doesnotexist.css');
  });

  it('gotenberg: POST /forms/chromium/convert/html (Fail On Resource HTTP Status Codes)', async () => {
    // [499,599] in Gotenberg's terms: a missing file of the upload answered no status at all.
    const result = await engine.capture({ files: missingAsset, format: 'pdf', fail_on_resource_status: '400-599' });
    expect(result.format).toBe('pdf');
  });

  it('gotenberg: POST /forms/chromium/convert/html (Single Page)', async () => {
    expect(pageCount((await engine.capture({ html: PAGES_12, format: 'pdf' })).data as Buffer)).toBe(12);
    const single = (await engine.capture({ html: PAGES_12, format: 'pdf', pdf_single_page: true })).data as Buffer;
    expect(pageCount(single)).toBe(1);
    // Gotenberg keeps the first page only (its page ranges "1"); the whole document is on ours, the breaks ignored.
    const text = poppler('pdftotext', single);
    expect(text).toContain('Page 1\n');
    expect(text).toContain('Page 12');
    // The page is sized to the document: a paper size asked beside it would be ignored, so it is refused.
    for (const paper of [{ pdf_paper: 'Letter' as const }, { pdf_width: '8.5in', pdf_height: '11in' }]) {
      const refused = await engine.capture({ html: PAGES_12, format: 'pdf', pdf_single_page: true, ...paper }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused).toMatchObject({ code: 'INCOMPATIBLE_PARAMETERS', details: { params: ['pdf_single_page', Object.keys(paper)[0]] } });
    }
  });

  it('gotenberg: POST /forms/chromium/convert/html (Single Page Landscape)', async () => {
    const single = (await engine.capture({ html: WIDE_TABLE, format: 'pdf', pdf_single_page: true, pdf_landscape: true })).data as Buffer;
    expect(pageCount(single)).toBe(1);
    const [width, height] = pageSize(single);
    expect(width).toBeGreaterThan(height);
    expect(poppler('pdftotext', single)).toContain('Column 12');
  });
});
