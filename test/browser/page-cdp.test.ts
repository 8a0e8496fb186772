import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type CDPSession } from 'playwright-core';
import { findChromium } from '../../src/browser/chromium-path.js';
import { PageCdp } from '../../src/browser/page-cdp.js';

/**
 * The capture's CDP session: stateless commands through Playwright's own session on the page (no
 * second DevTools session attached), the rest through one of the engine's own, attached on first
 * use. These fail when a Playwright upgrade moves the internals the bridge reads.
 */
let browser: Browser;
beforeAll(async () => {
  browser = await chromium.launch({ executablePath: findChromium() });
});
afterAll(async () => browser?.close());

const pngMagic = Buffer.from([0x89, 0x50, 0x4e, 0x47]);
const asPageCdp = (cdp: CDPSession): PageCdp => {
  expect(cdp).toBeInstanceOf(PageCdp);
  return cdp as unknown as PageCdp;
};

describe('PageCdp', () => {
  it("sends evaluations and viewport shots through Playwright's session, attaching none of its own", async () => {
    const context = await browser.newContext({ viewport: { width: 200, height: 100 } });
    try {
      const page = await context.newPage();
      await page.setContent('<body style="margin:0;background:#00ff00"><p>hi</p></body>');
      const cdp = PageCdp.open(context, page);
      const state = asPageCdp(cdp);
      expect(state.sharesPlaywrightSession).toBe(true);
      const { result } = await cdp.send('Runtime.evaluate', { expression: 'document.querySelector("p").textContent', returnByValue: true });
      expect(result.value).toBe('hi');
      const { data } = await cdp.send('Page.captureScreenshot', { format: 'png' });
      expect(Buffer.from(data, 'base64').subarray(0, 4)).toEqual(pngMagic);
      expect(state.attached).toBe(false);
      // A clip changes the page's emulation for the while: the engine's own session takes it.
      const clipped = await cdp.send('Page.captureScreenshot', { format: 'png', clip: { x: 0, y: 0, width: 10, height: 10, scale: 1 } });
      expect(Buffer.from(clipped.data, 'base64').subarray(0, 4)).toEqual(pngMagic);
      expect(state.attached).toBe(true);
    } finally {
      await context.close();
    }
  });

  it("after an emulation on its own session, shoots there too: a shot through Playwright's would ignore the scale", async () => {
    const context = await browser.newContext({ viewport: { width: 200, height: 100 } });
    try {
      const page = await context.newPage();
      await page.setContent('<body style="margin:0;background:#0000ff"></body>');
      const cdp = PageCdp.open(context, page);
      await cdp.send('Emulation.setDeviceMetricsOverride', { width: 200, height: 100, deviceScaleFactor: 2, mobile: false });
      const { data } = await cdp.send('Page.captureScreenshot', { format: 'png' });
      const png = Buffer.from(data, 'base64');
      // The IHDR chunk's width and height, big-endian at bytes 16 and 20.
      expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([400, 200]);
    } finally {
      await context.close();
    }
  });

  it('hears events on a session of its own, where the commands they answer went', async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const cdp = PageCdp.open(context, page);
      const heard = new Promise<string>((resolve) => cdp.once('Runtime.bindingCalled', ({ payload }) => resolve(payload)));
      await cdp.send('Runtime.addBinding', { name: 'tell' });
      expect(asPageCdp(cdp).attached).toBe(true);
      await cdp.send('Runtime.evaluate', { expression: 'tell("from the page"), 1', returnByValue: true });
      expect(await heard).toBe('from the page');
    } finally {
      await context.close();
    }
  });

  it('attaches its own session before it returns when asked to, and sends everything through it', async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const state = asPageCdp(await PageCdp.openAttached(context, page));
      expect([state.attached, state.sharesPlaywrightSession]).toEqual([true, false]);
      const { result } = await (state as unknown as CDPSession).send('Runtime.evaluate', { expression: '6 * 7', returnByValue: true });
      expect(result.value).toBe(42);
    } finally {
      await context.close();
    }
  });

  it('says a closed page is closed, in the words the engine sorts errors by', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const cdp = PageCdp.open(context, page);
    await context.close();
    await expect(cdp.send('Runtime.evaluate', { expression: '1', returnByValue: true })).rejects.toThrow(/Target page, context or browser has been closed|Session closed/);
  });

  it('sends everything through its own session on a browser Playwright reaches remotely', async () => {
    const server = await chromium.launchServer({ executablePath: findChromium() });
    const remote = await chromium.connect(server.wsEndpoint());
    try {
      const context = await remote.newContext();
      const page = await context.newPage();
      const cdp = PageCdp.open(context, page);
      expect(asPageCdp(cdp).sharesPlaywrightSession).toBe(false);
      const { result } = await cdp.send('Runtime.evaluate', { expression: '6 * 7', returnByValue: true });
      expect(result.value).toBe(42);
      expect(asPageCdp(cdp).attached).toBe(true);
    } finally {
      await remote.close();
      await server.close();
    }
  });
});
