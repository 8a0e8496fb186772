import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { findChromium } from '../../src/browser/chromium-path.js';
import { CONTENT_SELECTOR, pageHasContent } from '../../plugins/scenario-static/blank-shot.js';
import { evaluateInPage } from '../../plugins/shared/evaluate-in-page.js';

/**
 * What the blank check and the pre-shot wait both take for a page with something to paint: one
 * definition, read in a real page through a CDP session as the capture reads it.
 */
let browser: Browser;
beforeAll(async () => {
  browser = await chromium.launch({ executablePath: findChromium() });
});
afterAll(async () => browser?.close());

async function hasContent(html: string, script?: string, javaScriptEnabled = true): Promise<boolean> {
  const context = await browser.newContext({ javaScriptEnabled });
  try {
    const page = await context.newPage();
    await page.setContent(html);
    if (script) await page.evaluate(script);
    return await evaluateInPage(await context.newCDPSession(page), pageHasContent, CONTENT_SELECTOR);
  } finally {
    await context.close();
  }
}

describe('pageHasContent', () => {
  it.each([
    ['text', '<body><p>Hello</p></body>', true],
    ['an image without text', '<body><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw="></body>', true],
    ['an svg', '<body><svg width="10" height="10"></svg></body>', true],
    ['white space only', '<body>  \n\t <div> </div></body>', false],
    ['text only in a script, a style and a noscript', '<body><script>var x = "words"</script><style>p { color: red }</style><noscript>words</noscript></body>', false],
  ])('%s: %s', async (_name, html, expected) => {
    expect(await hasContent(html)).toBe(expected);
  });

  it('reads a page that runs no script (javascript=false), which can call no filter function back', async () => {
    expect(await hasContent('<body><p>Hello</p></body>', undefined, false)).toBe(true);
    expect(await hasContent('<body> <style>p {}</style> </body>', undefined, false)).toBe(false);
  });

  it('a document without a body has none', async () => {
    expect(await hasContent('<p>gone</p>', 'document.documentElement.replaceChildren()')).toBe(false);
  });
});
