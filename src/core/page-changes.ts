/**
 * Every capture page records, from its document's start, when it last changed (nodes, attributes,
 * text, a layout shift), in `performance.now()` time, under `Symbol.for(LAST_CHANGE_KEY)` on
 * `window`. The settle step reads it, so its quiet window can begin while the page is still loading
 * rather than after `wait_until`: a page at rest is found settled at once. It rides on the context's
 * own init script because a script of its own would cost a round trip to a renderer still starting.
 */
export const LAST_CHANGE_KEY = 'capture-engine.last-change';

function recordChanges(key: string): void {
  let last = performance.now();
  new MutationObserver(() => void (last = performance.now())).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  try {
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) last = Math.max(last, entry.startTime);
    }).observe({ type: 'layout-shift', buffered: true });
  } catch {
    // Layout shifts are not reported in every browser; mutations still are.
  }
  Object.defineProperty(window, Symbol.for(key), { get: () => last, configurable: true });
}

/** The recorder as init-script source. */
export const RECORD_CHANGES_SCRIPT = `(${recordChanges.toString()})(${JSON.stringify(LAST_CHANGE_KEY)});`;
