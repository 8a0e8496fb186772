import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { chromium, devices, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumArgs, findChromium } from '../../src/browser/chromium-path.js';
import { captureParamsJsonSchema } from '../../src/core/schema/capture-params.js';
import type { CaptureEngine } from '../../src/index.js';
import { killLeftoverBuiltProcesses, startBuiltService, type BuiltService } from '../helpers/built-service.js';
import { createTestEngine } from '../helpers/engine.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { decode, hex, MAGIC, near } from '../helpers/pixels.js';

/**
 * The playground of `npm start`, in a real browser: the built service on its own port, a page
 * driven by Playwright as a user would (labels, keyboard), captures of fixture pages checked by
 * their pixels and lengths, and the snippets the page writes run as they are.
 */
const KEY = 'ce_playground_0123456789abcdefghij';
const run = promisify(execFile);
const ARTIFACTS = fileURLToPath(new URL('../.artifacts/', import.meta.url));
/** A page 1500 CSS px tall, red at the top and blue at the bottom, that follows the device's width. */
const TALL_HEIGHT = 1500;

let fixtures: FixtureServer;
let service: BuiltService;
let browser: Browser;
let scratch: string;

beforeAll(async () => {
  fixtures = await startFixtureServer({
    '/tall': (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end(
        `<!doctype html><html><head><meta name="viewport" content="width=device-width,initial-scale=1"><style>html,body{margin:0}div{height:${TALL_HEIGHT / 2}px}</style></head><body><div style="background:#ff0000"></div><div style="background:#0000ff"></div></body></html>`,
      );
    },
  });
  const fixturePort = new URL(fixtures.origin).port;
  service = await startBuiltService('node', { CAPTURE_API_KEYS: `${KEY}:PRO`, CAPTURE_ALLOW_ADDRESSES: `127.0.0.1:${fixturePort}` });
  browser = await chromium.launch({ executablePath: findChromium(), args: chromiumArgs() });
  await mkdir(ARTIFACTS, { recursive: true });
  scratch = await mkdtemp(path.join(ARTIFACTS, 'playground-'));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
  await killLeftoverBuiltProcesses();
  await fixtures?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

/** The playground in a fresh context (its own session storage), once its form is built. */
async function openPlayground(options: { viewport?: { width: number; height: number }; isMobile?: boolean } = {}): Promise<{ context: BrowserContext; page: Page; urls: string[] }> {
  const context = await browser.newContext({ viewport: options.viewport ?? { width: 1280, height: 900 }, isMobile: options.isMobile, hasTouch: options.isMobile });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: service.origin });
  const page = await context.newPage();
  const urls: string[] = [];
  page.on('request', (request) => urls.push(request.url()));
  await page.goto(`${service.origin}/`);
  await page.getByLabel('url', { exact: true }).waitFor();
  return { context, page, urls };
}

/** Opens the form section that holds `name` (sections other than the first start folded). */
async function reveal(page: Page, name: string): Promise<void> {
  await page.locator(`[data-param="${name}"]`).evaluate((field) => {
    const details = field.closest('details');
    if (details) details.open = true;
  });
}

/** Presses Capture (or does `act`) and waits until `selector` shows the answer. */
async function submitAndWait(page: Page, selector: string, act = () => page.getByRole('button', { name: 'Capture', exact: true }).click()): Promise<void> {
  await act();
  await page.locator(selector).waitFor({ timeout: 60_000 });
}

/** The bytes of the file the page previews (its download link is a blob: URL of the answer). */
async function previewedBytes(page: Page): Promise<Buffer> {
  const base64 = await page.locator('#preview a.download').evaluate(async (link: HTMLAnchorElement) => {
    const bytes = new Uint8Array(await (await fetch(link.href)).arrayBuffer());
    let text = '';
    for (const byte of bytes) text += String.fromCharCode(byte);
    return btoa(text);
  });
  return Buffer.from(base64, 'base64');
}

describe('the playground', () => {
  it('is the root of npm start, and its form has a labelled control for every parameter of the schema', async () => {
    const { context, page } = await openPlayground();
    const properties = Object.keys((captureParamsJsonSchema().properties as Record<string, unknown>) ?? {}).filter((name) => name !== 'files' && name !== 'api_key');
    const unlabelled = await page.evaluate(() => [...document.querySelectorAll('input, select, textarea')].filter((control) => (control as HTMLInputElement).labels?.length === 0).map((control) => control.id));
    expect(unlabelled).toEqual([]);
    for (const name of properties) expect(await page.getByLabel(name, { exact: true }).count(), name).toBe(1);
    await expect(page.locator('[data-param="viewport_width"] .range').textContent()).resolves.toBe('integer 100–7680, default 1920');
    await expect(page.locator('[data-param="format"] select option').allTextContents()).resolves.toEqual(['png', 'jpg', 'webp', 'avif', 'pdf', 'mp4', 'webm', 'gif', 'markdown', 'html', 'text', 'links', 'metadata', 'aria', 'scrape']);
    const headers = (await page.request.get(`${service.origin}/`)).headers();
    expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
    await context.close();
  });

  it('captures a full page on a device, previews it at its real size and shows the limits, keeping the key out of every URL', async () => {
    const { context, page, urls } = await openPlayground();
    await page.getByLabel('API key').fill(KEY);
    await page.getByLabel('url', { exact: true }).fill(fixtures.url('/tall'));
    await page.getByLabel('format', { exact: true }).selectOption('png');
    await page.getByLabel('full_page', { exact: true }).check();
    await page.getByLabel('device', { exact: true }).fill('iPhone 15');
    await submitAndWait(page, '#preview img');
    const image = page.locator('#preview img');
    await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(0);
    const { viewport, deviceScaleFactor } = devices['iPhone 15'];
    const size = await image.evaluate((img: HTMLImageElement) => [img.naturalWidth, img.naturalHeight]);
    expect(size).toEqual([viewport.width * deviceScaleFactor, TALL_HEIGHT * deviceScaleFactor]);
    const decoded = await decode(await previewedBytes(page));
    expect(near(decoded.at(10, 10), '#ff0000')).toBe(true);
    expect(near(decoded.at(10, decoded.height - 10), '#0000ff')).toBe(true);
    await expect(page.locator('#status').textContent()).resolves.toContain(`${size[0]}×${size[1]} px`);
    await expect(page.locator('[data-header="x-ratelimit-remaining"]').textContent()).resolves.toMatch(/^\d+$/);
    await expect(page.locator('[data-header="x-quota-remaining"]').textContent()).resolves.toMatch(/^\d+$/);
    await expect(page.locator('[data-header="server-timing"]').textContent()).resolves.toMatch(/navigate [\d.]+ .* total [\d.]+/);
    expect(urls.filter((url) => url.includes(KEY))).toEqual([]);
    // The key lives in the tab's session: a reload keeps it, another tab's session does not have it.
    await page.reload();
    await expect(page.getByLabel('API key').inputValue()).resolves.toBe(KEY);
    const other = await openPlayground();
    await expect(other.page.getByLabel('API key').inputValue()).resolves.toBe('');
    await Promise.all([context.close(), other.context.close()]);
  });

  it('switches to mp4 and plays the video', async () => {
    const { context, page } = await openPlayground();
    await page.getByLabel('API key').fill(KEY);
    await page.getByLabel('url', { exact: true }).fill(fixtures.url('/tall'));
    await page.getByLabel('format', { exact: true }).selectOption('mp4');
    await reveal(page, 'duration');
    await page.getByLabel('duration', { exact: true }).fill('2');
    await page.getByLabel('viewport_width', { exact: true }).fill('640');
    await page.getByLabel('viewport_height', { exact: true }).fill('360');
    await submitAndWait(page, '#preview video');
    const video = page.locator('#preview video');
    await expect.poll(() => video.evaluate((element: HTMLVideoElement) => element.readyState), { timeout: 15_000 }).toBeGreaterThanOrEqual(1);
    const { duration, width, height } = await video.evaluate((element: HTMLVideoElement) => ({ duration: element.duration, width: element.videoWidth, height: element.videoHeight }));
    expect([width, height]).toEqual([640, 360]);
    expect(duration).toBeGreaterThan(1.8);
    expect(duration).toBeLessThan(2.3);
    expect((await previewedBytes(page)).subarray(4, 8).toString('latin1')).toBe('ftyp');
    // Playable: it plays, and time moves.
    await video.evaluate((element: HTMLVideoElement) => element.play());
    await expect.poll(() => video.evaluate((element: HTMLVideoElement) => element.currentTime), { timeout: 10_000 }).toBeGreaterThan(0.2);
    await context.close();
  });

  it('previews a pdf in a frame', async () => {
    const { context, page } = await openPlayground();
    await page.getByLabel('API key').fill(KEY);
    await page.getByLabel('url', { exact: true }).fill(fixtures.url('/tall'));
    await page.getByLabel('format', { exact: true }).selectOption('pdf');
    await submitAndWait(page, '#preview iframe');
    await expect(page.locator('#preview iframe').getAttribute('src')).resolves.toMatch(/^blob:/);
    expect((await previewedBytes(page)).subarray(0, 5).toString('latin1')).toBe('%PDF-');
    await expect(page.locator('#status').textContent()).resolves.toMatch(/^200 · application\/pdf · [\d.]+ KB/);
    await context.close();
  });

  it("puts a 400's message beside the parameter it names, and the key's errors beside the key", async () => {
    const { context, page } = await openPlayground();
    await page.getByLabel('url', { exact: true }).fill(fixtures.url('/tall'));
    await page.getByRole('button', { name: 'Capture', exact: true }).click();
    await expect.poll(() => page.locator('#api-key-error').textContent()).toMatch(/API key required/);
    await page.getByLabel('API key').fill(KEY);
    await page.getByLabel('viewport_width', { exact: true }).fill('50');
    await page.getByRole('button', { name: 'Capture', exact: true }).click();
    const error = page.locator('#param-viewport_width-error');
    await error.waitFor();
    await expect(error.textContent()).resolves.toMatch(/viewport_width.*100\.\.7680/);
    const field = page.getByLabel('viewport_width', { exact: true });
    await expect(field.getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(field.evaluate((input) => input === document.activeElement)).resolves.toBe(true);
    // The message is the control's description for assistive technology too.
    await expect(field.getAttribute('aria-describedby')).resolves.toContain('param-viewport_width-error');
    await expect(page.locator('#status').textContent()).resolves.toContain('400 INVALID_PARAMETER');
    await context.close();
  });

  it('works from the keyboard alone', async () => {
    const { context, page } = await openPlayground();
    await page.getByLabel('API key').focus();
    await page.keyboard.type(KEY);
    for (let i = 0; i < 5 && (await page.evaluate(() => document.activeElement?.id)) !== 'param-url'; i++) await page.keyboard.press('Tab');
    await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe('param-url');
    await page.keyboard.type(fixtures.url('/solid?color=%2300ff00'));
    await submitAndWait(page, '#preview img', () => page.keyboard.press('Enter'));
    const decoded = await decode(await previewedBytes(page));
    expect([decoded.width, decoded.height]).toEqual([1920, 1080]);
    expect(near(decoded.at(960, 540), '#00ff00')).toBe(true);
    await context.close();
  });

  it('writes the same request as curl, as a client call and as a render link, each giving the same bytes', async () => {
    const { context, page } = await openPlayground();
    await page.getByLabel('API key').fill(KEY);
    await page.getByLabel('url', { exact: true }).fill(fixtures.url('/bands'));
    await page.getByLabel('viewport_width', { exact: true }).fill('400');
    await page.getByLabel('viewport_height', { exact: true }).fill('300');
    await submitAndWait(page, '#preview img');
    const shown = await previewedBytes(page);
    expect(shown.subarray(0, 8)).toEqual(MAGIC.png);

    await page.getByRole('button', { name: 'Copy the curl command' }).click();
    const curl = await page.evaluate(() => navigator.clipboard.readText());
    expect(curl).toContain('$CAPTURE_API_KEY');
    expect(curl).not.toContain(KEY);
    await run('bash', ['-c', curl], { cwd: scratch, env: { ...process.env, CAPTURE_API_KEY: KEY } });
    expect(await readFile(path.join(scratch, 'capture.png'))).toEqual(shown);

    // The client call, run by Node from inside the package, where `capture-engine/client` resolves.
    await rm(path.join(scratch, 'capture.png'));
    await writeFile(path.join(scratch, 'call.mjs'), (await page.locator('#snippet-client').textContent()) ?? '');
    await run(process.execPath, ['call.mjs'], { cwd: scratch, env: { ...process.env, CAPTURE_API_KEY: KEY } });
    expect(await readFile(path.join(scratch, 'capture.png'))).toEqual(shown);

    // The render link carries no key, only a signature made in the page from it.
    const link = (await page.locator('#snippet-link').textContent()) ?? '';
    expect(link).toMatch(/\/api\/v1\/render\?.*signature=[0-9a-f]{64}$/);
    expect(link).not.toContain(KEY);
    const linked = await fetch(link);
    expect(linked.status).toBe(200);
    expect(Buffer.from(await linked.arrayBuffer())).toEqual(shown);
    await context.close();
  });

  describe('on a phone', () => {
    let engine: CaptureEngine;
    beforeAll(async () => {
      engine = await createTestEngine();
    });
    afterAll(async () => {
      await engine?.close();
    });

    it('fits 390x844: captured by the engine itself, nothing wider than the screen, the Capture button in reach', async () => {
      const shot = await engine.capture({ url: `${service.origin}/`, viewport_width: 390, viewport_height: 844, is_mobile: true, has_touch: true, wait_for_selector: '#param-url' });
      await writeFile(path.join(ARTIFACTS, 'playground-phone.png'), shot.data as Buffer);
      const image = await decode(shot.data as Buffer);
      expect([image.width, image.height]).toEqual([390, 844]);
      // The sticky Capture button (the accent colour) sits at the bottom of the screen.
      const accent = hex('#1f5fd6');
      const bottomRows = Array.from({ length: 80 }, (_, i) => image.at(195, 843 - i));
      expect(bottomRows.some((pixel) => near(pixel, accent, 20))).toBe(true);

      const { context, page } = await openPlayground({ viewport: { width: 390, height: 844 }, isMobile: true });
      // A phone lays a page out wider than its screen (and zooms out) when anything overflows, every section open.
      await page.locator('details').evaluateAll((sections) => sections.forEach((section) => ((section as HTMLDetailsElement).open = true)));
      await expect(page.evaluate(() => [innerWidth, document.documentElement.scrollWidth])).resolves.toEqual([390, 390]);
      const button = await page.getByRole('button', { name: 'Capture', exact: true }).boundingBox();
      expect(button?.height).toBeGreaterThanOrEqual(40);
      expect((button?.y ?? 1e9) + (button?.height ?? 0)).toBeLessThanOrEqual(844);
      await context.close();
    });
  });
});

// Issue 50, item 16: a gap the height of the form above "The same request", a /favicon.ico that
// answered 404, and /api/playground/ (a 404 then; the page since issue 47).
describe('the playground page itself', () => {
  it('shows the same request right under the result, with an icon of its own, also at /api/playground/', async () => {
    const { context, page, urls } = await openPlayground({ viewport: { width: 1440, height: 960 } });
    try {
      const [result, code, form] = await Promise.all(['#result', '#code', '#request'].map((selector) => page.locator(selector).boundingBox()));
      const gap = Number.parseFloat(await page.locator('main').evaluate((main) => getComputedStyle(main).rowGap));
      expect(form!.height).toBeGreaterThan(result!.height + code!.height);
      expect(code!.y - (result!.y + result!.height)).toBeGreaterThanOrEqual(gap - 1);
      expect(code!.y - (result!.y + result!.height)).toBeLessThanOrEqual(gap + 1);
      // In pixels: the panel's border follows the result's within the gap, not the page's background.
      const shot = await decode(await page.screenshot({ clip: { x: Math.round(code!.x + code!.width / 2), y: Math.round(result!.y + result!.height), width: 1, height: Math.round(gap) + 2 } }));
      expect(near(shot.at(0, shot.height - 1), shot.at(0, 1), 4)).toBe(false);
      const icon = await page.evaluate(async () => {
        const link = document.querySelector<HTMLLinkElement>('link[rel="icon"]');
        if (!link) return 0;
        const image = new Image();
        image.src = link.href;
        await image.decode();
        return image.naturalWidth;
      });
      expect(icon).toBeGreaterThan(0);
      expect(urls.filter((url) => url.endsWith('/favicon.ico'))).toEqual([]);
      const slash = await fetch(`${service.origin}/api/playground/`);
      expect(slash.status).toBe(200);
      expect(await slash.text()).toContain('<h2 id="code-title">The same request</h2>');
    } finally {
      await context.close();
    }
  });
});
