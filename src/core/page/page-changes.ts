/**
 * Every capture page records, from its document's start, when it last changed (nodes, attributes,
 * text, a layout shift), in `performance.now()` time, and which timers it set while drawing itself
 * are still to run. The settle step reads the record (`PageChangeRecord` under
 * `Symbol.for(LAST_CHANGE_KEY)` on `window`), so its quiet window can begin while the page is still
 * loading rather than after `wait_until`: a page at rest is found settled at once. It rides on the
 * context's own init script because a script of its own would cost a round trip to a renderer
 * still starting.
 */
export const LAST_CHANGE_KEY = 'capture-engine.last-change';

export interface PageChangeRecord {
  /** When the document last changed. */
  readonly lastChange: number;
  /** How many timers the page set while drawing itself are still to run. */
  readonly timersPending: number;
}

/**
 * A timer longer than this is a poll or a carousel's next turn, not part of drawing the page: a
 * status box cleared 600 ms after typesetting is, as is a script loaded 100 ms after `load`.
 */
const DRAWING_TIMER_MS = 1_000;
/** A timer set this long after the page last changed, loaded or received a resource belongs to something else. */
const WHILE_DRAWING_MS = 100;

function recordChanges(key: string, drawingTimerMs: number, whileDrawingMs: number): void {
  let last = performance.now();
  const changes = new MutationObserver(() => void (last = performance.now()));
  changes.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  try {
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) last = Math.max(last, entry.startTime);
    }).observe({ type: 'layout-shift', buffered: true });
  } catch {
    // Layout shifts are not reported in every browser; mutations still are.
  }
  // When the page last did something a timer may be a step of: changed, loaded, or received a resource.
  let active = 0;
  addEventListener('load', () => void (active = Math.max(active, performance.now())), { once: true });
  const resources = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) active = Math.max(active, (entry as PerformanceResourceTiming).responseEnd);
  });
  resources.observe({ type: 'resource' });
  const activeAt = (now: number): number => {
    // A timer set in the same task as a change or just after a load: their records are not delivered yet.
    if (changes.takeRecords().length > 0) last = now;
    for (const entry of resources.takeRecords()) active = Math.max(active, (entry as PerformanceResourceTiming).responseEnd);
    return Math.max(last, active);
  };

  // One-shot timers set while the page draws itself, until they have run. A callback is waited for
  // once: one that sets itself again is a poll or a clock, which never ends. The page's
  // `setTimeout` and `clearTimeout` stay its own, writable, with their names and lengths, and its
  // callbacks run as they would, with their `this` and arguments.
  const pending = new Set<unknown>();
  const awaited = new WeakSet<object>();
  window.setTimeout = new Proxy(window.setTimeout, {
    apply(target, self, args: unknown[]) {
      const [handler, delay, ...rest] = args;
      const now = performance.now();
      if (typeof handler !== 'function' || Number(delay) > drawingTimerMs || awaited.has(handler) || now - activeAt(now) > whileDrawingMs) {
        return Reflect.apply(target, self, args) as unknown;
      }
      awaited.add(handler);
      // Runs after the timer is set, so `id` is there by then.
      const run = function (this: unknown, ...callArgs: unknown[]): unknown {
        pending.delete(id);
        return Reflect.apply(handler, this, callArgs) as unknown;
      };
      const id: unknown = Reflect.apply(target, self, [run, delay, ...rest]);
      pending.add(id);
      return id;
    },
  });
  // Either clears a timeout: timeouts and intervals share their ids.
  for (const name of ['clearTimeout', 'clearInterval'] as const) {
    window[name] = new Proxy(window[name], {
      apply(target, self, args: unknown[]) {
        pending.delete(args[0]);
        return Reflect.apply(target, self, args) as unknown;
      },
    });
  }
  const record: PageChangeRecord = {
    get lastChange() {
      return last;
    },
    get timersPending() {
      return pending.size;
    },
  };
  Object.defineProperty(window, Symbol.for(key), { value: record, configurable: true });
}

/** The recorder as init-script source. */
export const RECORD_CHANGES_SCRIPT = `(${recordChanges.toString()})(${JSON.stringify(LAST_CHANGE_KEY)}, ${DRAWING_TIMER_MS}, ${WHILE_DRAWING_MS});`;
