/** What the in-page fallback found and did in one frame. */
export interface FallbackReport {
  /** Visible elements of known CMPs. */
  known: number;
  /** Fixed or sticky consent boxes found by their wording and buttons. */
  heuristic: number;
  /** Empty full-viewport backdrops removed. */
  overlays: number;
  /** Whether a scroll lock or a blur on the page was removed. */
  unlocked: boolean;
  /** For a subframe: its whole document is a consent dialog (its iframe is hidden by the parent). */
  frameIsConsent: boolean;
  /** Nothing was changed because something was found and `hold` was asked. */
  held: boolean;
  /** This frame's autoconsent record (see autoconsent-script.ts), read in the same round trip. */
  autoconsent?: unknown;
}

export interface FallbackInput {
  selectors: readonly string[];
  consentWords: string;
  buttonWords: string;
  /** Marks our style element and hidden elements, so passes are idempotent. */
  mark: string;
  /**
   * First look: if a consent UI shows, change nothing (autoconsent gets its chance to opt out
   * first); if none shows, install the stylesheet for known CMPs that might still come.
   */
  hold: boolean;
  /** A consent UI was handled elsewhere (autoconsent, another frame): clean backdrops and locks here too. */
  consentSeen: boolean;
  /** Global holding autoconsent's record in this frame. */
  stateKey: string;
}

/**
 * Runs inside a frame (serialized by Playwright, so it must not use anything outside itself).
 * Hides known CMP containers with a stylesheet (it also catches a banner inserted later), then
 * fixed or sticky boxes that read like a consent notice and offer consent buttons. Only when a
 * consent UI was found does it remove empty dark backdrops and the scroll lock they leave: a page
 * without a banner keeps its own fixed elements and overflow rules untouched.
 */
export function consentFallbackInPage(input: FallbackInput): FallbackReport {
  const report: FallbackReport = { known: 0, heuristic: 0, overlays: 0, unlocked: false, frameIsConsent: false, held: false };
  report.autoconsent = (window as unknown as Record<string, unknown>)[input.stateKey];
  const consent = new RegExp(input.consentWords, 'i');
  const buttonLabel = new RegExp(input.buttonWords, 'i');
  const root = document.documentElement;
  const body = document.body;
  if (!root || !body) return report;
  const viewportWidth = window.innerWidth;
  const viewportHeight = window.innerHeight;

  const isShown = (element: Element): boolean => {
    const rect = element.getBoundingClientRect();
    if (rect.width < 2 || rect.height < 2) return false;
    if (rect.bottom <= 0 || rect.right <= 0 || rect.top >= viewportHeight || rect.left >= viewportWidth) return false;
    return element.checkVisibility({ opacityProperty: true, visibilityProperty: true });
  };
  // CMP roots are often empty boxes around fixed-position children.
  const isShownDeep = (element: Element): boolean => {
    if (isShown(element)) return true;
    const inner = element.getElementsByTagName('*');
    for (let index = 0; index < Math.min(inner.length, 300); index++) if (isShown(inner[index] as Element)) return true;
    return false;
  };
  const textOf = (element: Element): string => {
    const own = (element as HTMLElement).innerText ?? element.textContent ?? '';
    const shadow = element.shadowRoot ? (element.shadowRoot.textContent ?? '') : '';
    return `${own} ${shadow}`;
  };
  const hasConsentButton = (element: Element | ShadowRoot): boolean => {
    const buttons = element.querySelectorAll('button, [role="button"], a, input[type="button"], input[type="submit"]');
    for (const button of buttons) {
      const label = `${(button as HTMLElement).innerText ?? ''} ${(button as HTMLInputElement).value ?? ''} ${button.getAttribute('aria-label') ?? ''}`;
      if (label.length < 80 && buttonLabel.test(label)) return true;
    }
    return false;
  };
  const hide = (element: Element): void => {
    (element as HTMLElement).style.setProperty('display', 'none', 'important');
    element.setAttribute('data-capture-engine-hidden', input.mark);
  };

  // 1. Known CMP containers, counted as they would show without our stylesheet (a banner it hid
  // since the last pass still needs its backdrop and scroll lock removed).
  let style = document.querySelector<HTMLStyleElement>(`style[data-capture-engine="${input.mark}"]`);
  if (style) style.disabled = true;
  for (const selector of input.selectors) {
    try {
      for (const element of document.querySelectorAll(selector)) if (isShownDeep(element)) report.known++;
    } catch {
      // a selector this browser does not parse
    }
  }
  if (style) style.disabled = false;

  // 2. Unknown banners: fixed or sticky boxes with consent wording and consent buttons. Boxes
  // holding the page's main content, or too much text to be a notice, are left alone.
  const all = body.getElementsByTagName('*');
  const limit = Math.min(all.length, 20_000);
  const found: Element[] = [];
  for (let index = 0; index < limit; index++) {
    const element = all[index] as Element;
    if (found.some((outer) => outer.contains(element))) continue;
    const position = getComputedStyle(element).position;
    if (position !== 'fixed' && position !== 'sticky') continue;
    if (!isShown(element)) continue;
    const text = textOf(element);
    if (text.length > 4000 || !consent.test(text)) continue;
    if (element.querySelector('main, article, [role="main"]')) continue;
    if (!hasConsentButton(element) && !(element.shadowRoot && hasConsentButton(element.shadowRoot))) continue;
    found.push(element);
  }
  report.heuristic = found.length;

  // 3. A subframe that is nothing but a consent dialog (CMPs that render in an iframe).
  if (window.top !== window) {
    const text = body.innerText ?? '';
    report.frameIsConsent = text.length < 4000 && consent.test(text) && hasConsentButton(body);
  }

  const somethingHere = report.known + report.heuristic > 0 || report.frameIsConsent;
  if (input.hold && somethingHere) {
    report.held = true;
    return report;
  }

  // One rule per selector: an unsupported one drops only itself.
  if (!style) {
    style = document.createElement('style');
    style.dataset.captureEngine = input.mark;
    (document.head ?? root).append(style);
  }
  style.textContent = input.selectors.map((selector) => `${selector} { display: none !important; }`).join('\n');
  for (const element of found) hide(element);
  if (!somethingHere && !input.consentSeen) return report;

  // 4. Backdrops left behind: fixed, covering most of the viewport, translucent or blurring, with
  // nothing readable in them.
  for (let index = 0; index < limit; index++) {
    const element = all[index] as HTMLElement;
    if (!element || element.closest(`[data-capture-engine-hidden="${input.mark}"]`)) continue;
    const computed = getComputedStyle(element);
    if (computed.position !== 'fixed' || !isShown(element)) continue;
    const rect = element.getBoundingClientRect();
    if (rect.width * rect.height < 0.8 * viewportWidth * viewportHeight) continue;
    const alpha = /rgba?\([^)]*,\s*([\d.]+)\)/.exec(computed.backgroundColor)?.[1];
    const translucent = alpha !== undefined && Number(alpha) > 0.05 && Number(alpha) < 0.98;
    const blurring = computed.backdropFilter !== 'none' && computed.backdropFilter !== '';
    if (!translucent && !blurring) continue;
    const visibleChildren = [...element.querySelectorAll('iframe, img, video, canvas')].filter((child) => isShown(child));
    if ((element.innerText ?? '').trim().length > 20 || visibleChildren.length > 0) continue;
    hide(element);
    report.overlays++;
  }

  // 5. Scroll locks and blurs set while the dialog was open.
  for (const element of [root, body]) {
    const computed = getComputedStyle(element);
    if (['hidden', 'clip'].includes(computed.overflowY) || ['hidden', 'clip'].includes(computed.overflow)) {
      element.style.setProperty('overflow', 'visible', 'important');
      report.unlocked = true;
    }
  }
  if (getComputedStyle(body).position === 'fixed') {
    body.style.setProperty('position', 'static', 'important');
    body.style.setProperty('top', 'auto', 'important');
    report.unlocked = true;
  }
  for (const element of [root, body, ...body.children]) {
    if (/blur\(/.test(getComputedStyle(element).filter)) {
      (element as HTMLElement).style.setProperty('filter', 'none', 'important');
      report.unlocked = true;
    }
  }
  return report;
}
