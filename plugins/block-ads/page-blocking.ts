import type { Disposable, Page, Request as PlaywrightRequest, Route } from 'playwright-core';
import { fromPlaywrightDetails, Request, type PlaywrightBlocker } from '@ghostery/adblocker-playwright';
import { isPageDocument } from '../shared/page-document.js';

/**
 * Ghostery's Playwright layer, trimmed to what a capture needs, as a symmetric enable/disable
 * pair on one page:
 * - network blocking of every request but the page's own document (`page.route`; it also turns
 *   Chromium's HTTP cache off for the page, so it is set up only when `block_ads` asks);
 * - the generic and site-specific hiding rules as a stylesheet that an init script adds at
 *   document start in every frame: ads never flash in, and no protocol call per frame.
 * Ghostery's own `enableBlockingInPage` also polls each frame's DOM with `$$eval`, which installs
 * Playwright's whole selector engine in every frame: ~100 ms a frame on an idle machine, seconds
 * on a busy one. The DOM-dependent rules come from one pass before the capture instead
 * (cosmetic-pass.ts).
 */
export class PageBlocking {
  /** URLs refused on this page: their elements are collapsed by the cosmetic pass. */
  readonly blocked = new Set<string>();
  private stylesheet: Disposable | undefined;
  private enabled = false;

  constructor(
    private readonly page: Page,
    readonly blocker: PlaywrightBlocker,
  ) {}

  async enable(targetUrl: string): Promise<void> {
    if (this.enabled) return;
    this.enabled = true;
    this.page.on('requestfailed', this.onFailed);
    const [, stylesheet] = await Promise.all([
      this.page.route('**/*', this.onRoute),
      this.page.addInitScript({ content: stylesheetScript(this.blocker, targetUrl) }),
    ]);
    this.stylesheet = stylesheet;
  }

  /** Not awaited: commands to a page run in order, and the capture need not wait for a closing page. */
  disable(): void {
    if (!this.enabled) return;
    this.enabled = false;
    this.page.off('requestfailed', this.onFailed);
    void this.page.unroute('**/*', this.onRoute).catch(() => undefined);
    void this.stylesheet?.dispose().catch(() => undefined);
  }

  private readonly onFailed = (request: PlaywrightRequest): void => {
    if (request.failure()?.errorText === 'net::ERR_BLOCKED_BY_CLIENT') this.blocked.add(request.url());
  };

  /** Ghostery's matching, with every route settled and awaited: a rejection here must not go unhandled. */
  private readonly onRoute = async (route: Route): Promise<void> => {
    try {
      const details = route.request();
      if (isPageDocument(details)) {
        await route.fallback();
        return;
      }
      const { redirect, match } = this.blocker.match(fromPlaywrightDetails(details));
      if (redirect !== undefined) {
        const base64 = redirect.contentType.endsWith(';base64');
        await route.fulfill({
          body: base64 ? Buffer.from(redirect.body, 'base64') : redirect.body,
          contentType: base64 ? redirect.contentType.slice(0, -7) : redirect.contentType,
        });
      } else if (match) {
        await route.abort('blockedbyclient');
      } else {
        await route.fallback();
      }
    } catch {
      // The page or its context closed while the request waited.
    }
  };
}

/** The init script: rules for the target's site in frames of that site, generic ones elsewhere. */
function stylesheetScript(blocker: PlaywrightBlocker, targetUrl: string): string {
  const { hostname, domain } = Request.fromRawDetails({ url: targetUrl, type: 'main_frame' });
  const rules = (siteRules: boolean): string =>
    blocker.getCosmeticsFilters({
      url: targetUrl,
      hostname,
      domain,
      getBaseRules: true,
      getInjectionRules: false,
      getExtendedRules: false,
      getRulesFromHostname: siteRules,
      getRulesFromDOM: false,
    }).styles;
  return `(() => {
  const css = location.hostname === ${JSON.stringify(hostname)} ? ${JSON.stringify(rules(true))} : ${JSON.stringify(rules(false))};
  if (!css) return;
  const add = () => {
    const style = document.createElement('style');
    style.dataset.captureEngine = 'block-ads-base';
    style.textContent = css;
    (document.head || document.documentElement).append(style);
  };
  if (document.documentElement) add();
  else document.addEventListener('readystatechange', add, { once: true });
})();`;
}
