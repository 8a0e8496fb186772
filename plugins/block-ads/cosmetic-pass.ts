import type { Frame, Page } from 'playwright-core';
import { extractFeaturesFromDOM } from '@ghostery/adblocker-content';
import { Request, type PlaywrightBlocker } from '@ghostery/adblocker-playwright';

const STYLE_MARK = 'block-ads';

/**
 * A last cosmetic pass over every frame, right before the capture. Ghostery injects its styles
 * when a frame navigates and watches the DOM for a few seconds; ad slots inserted later, and
 * frames whose first injection raced the document, are caught here. Elements whose resource was
 * blocked (images, iframes) are collapsed too, as uBlock Origin does, so no empty box is left.
 */
export async function applyCosmeticPass(blocker: PlaywrightBlocker, page: Page, blocked: ReadonlySet<string>): Promise<void> {
  const topUrl = page.url();
  await Promise.all(page.frames().map((frame) => passOverFrame(blocker, frame, topUrl, blocked).catch(() => undefined)));
}

async function passOverFrame(blocker: PlaywrightBlocker, frame: Frame, topUrl: string, blocked: ReadonlySet<string>): Promise<void> {
  if (frame.isDetached()) return;
  // about:blank and srcdoc frames belong to the page that made them.
  const url = /^https?:/.test(frame.url()) ? frame.url() : topUrl;
  // Ghostery's own URL parsing (public suffix aware), as its network matching uses.
  const { hostname, domain } = Request.fromRawDetails({ url, type: 'main_frame' });
  // evaluate, not $$eval: $$eval would install Playwright's selector engine in the frame.
  const features = await frame.evaluate(extractFeaturesFromDOM as () => ReturnType<typeof extractFeaturesFromDOM>);
  const { active, styles } = blocker.getCosmeticsFilters({
    url,
    hostname,
    domain,
    ...features,
    getBaseRules: true,
    getInjectionRules: false,
    getExtendedRules: true,
    getRulesFromHostname: true,
    getRulesFromDOM: true,
  });
  if (active === false) return;
  await frame.evaluate(
    ({ css, urls, mark }) => {
      const root = document.head ?? document.documentElement;
      if (!root) return;
      let style = document.querySelector<HTMLStyleElement>(`style[data-capture-engine="${mark}"]`);
      if (!style) {
        style = document.createElement('style');
        style.dataset.captureEngine = mark;
        root.append(style);
      }
      style.textContent = css;
      if (urls.length === 0) return;
      const gone = new Set(urls);
      for (const element of document.querySelectorAll<HTMLImageElement | HTMLIFrameElement>('img, iframe, embed, object')) {
        const source = (element as HTMLImageElement).currentSrc || (element as HTMLImageElement).src || element.getAttribute('data') || '';
        if (gone.has(source)) element.style.setProperty('display', 'none', 'important');
      }
    },
    { css: styles, urls: [...blocked], mark: STYLE_MARK },
  );
}
