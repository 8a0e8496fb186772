import type { CDPSession } from 'playwright-core';

/** A rectangle in CSS px. */
export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * How far a mobile page is zoomed out to fit the viewport: a page without a viewport meta tag is
 * laid out 980 px wide and shown at 320/980 on a 320 px phone, as Chromium does (1 when not).
 */
export async function pageZoom(cdp: CDPSession): Promise<number> {
  const { cssVisualViewport } = await cdp.send('Page.getLayoutMetrics');
  return cssVisualViewport.scale > 0 ? cssVisualViewport.scale : 1;
}

/**
 * A rectangle given in px of the page as shown (`clip_*`: what the viewport shot shows) in CSS px
 * of the page, to be rendered at `zoom`: the clip agrees with the viewport shot, as Playwright's
 * clip of a mobile page does.
 */
export function unzoomed(rect: Rect, zoom: number): Rect {
  return { x: rect.x / zoom, y: rect.y / zoom, width: rect.width / zoom, height: rect.height / zoom };
}
