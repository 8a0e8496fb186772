import type { Page } from 'playwright-core';

/** The drawn pointer: where the mouse is, and how it moves to a point the way a hand moves it. */
export interface Pointer {
  /** Moves in `steps`, `pause` between them (a hand's pace in a video; none for a still). */
  glide(x: number, y: number, steps: number, pause: () => Promise<void> | undefined): Promise<void>;
}

/** A black arrow with a white edge, 20 px tall, its tip at the pointer's position. */
const ARROW =
  'data:image/svg+xml,' +
  encodeURIComponent('<svg xmlns="http://www.w3.org/2000/svg" width="14" height="21" viewBox="0 0 14 21"><path d="M1 1v17l4.5-4.2 3 6.2 2.6-1.2-3-6.1H14z" fill="#000" stroke="#fff" stroke-width="1.2"/></svg>');

/**
 * Draws a pointer over the page that follows the mouse (`show_cursor`): headless Chromium draws
 * none. It starts in the middle of the viewport so a video shows it from its first frame.
 */
export async function drawCursor(page: Page, width: number, height: number): Promise<Pointer> {
  await page.evaluate((arrow) => {
    const cursor = document.createElement('div');
    cursor.setAttribute('aria-hidden', 'true');
    cursor.style.cssText = `position:fixed;left:0;top:0;width:14px;height:21px;z-index:2147483647;pointer-events:none;background:url("${arrow}") no-repeat;transform:translate(-100px,-100px)`;
    document.documentElement.append(cursor);
    const follow = (event: MouseEvent): void => void (cursor.style.transform = `translate(${event.clientX}px,${event.clientY}px)`);
    addEventListener('mousemove', follow, { capture: true, passive: true });
  }, ARROW);
  let at = { x: Math.round(width / 2), y: Math.round(height / 2) };
  await page.mouse.move(at.x, at.y);
  return {
    async glide(x, y, steps, pause) {
      const from = at;
      for (let step = 1; step <= steps; step++) {
        // Eased in and out, as a hand starts and stops.
        const t = step / steps;
        const eased = t < 0.5 ? 2 * t * t : 1 - (-2 * t + 2) ** 2 / 2;
        await page.mouse.move(from.x + (x - from.x) * eased, from.y + (y - from.y) * eased);
        await pause();
      }
      at = { x, y };
    },
  };
}
