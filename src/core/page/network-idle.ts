import type { Page, Request } from 'playwright-core';
import { abortable } from '../deadline.js';

/**
 * Counts the page's in-flight requests (all frames) so `networkidle0`/`networkidle2` mean what
 * Puppeteer means: at most N connections for `idleMs`. Attach before navigating.
 */
export interface InflightTracker {
  readonly inflight: number;
  waitForIdle(maxInflight: number, idleMs: number, signal: AbortSignal): Promise<void>;
  detach(): void;
}

export function trackInflight(page: Page): InflightTracker {
  const pending = new Set<Request>();
  const listeners = new Set<() => void>();
  const notify = (): void => listeners.forEach((listener) => listener());
  const onStart = (request: Request): void => {
    pending.add(request);
    notify();
  };
  const onEnd = (request: Request): void => {
    pending.delete(request);
    notify();
  };
  page.on('request', onStart);
  page.on('requestfinished', onEnd);
  page.on('requestfailed', onEnd);

  return {
    get inflight() {
      return pending.size;
    },
    waitForIdle(maxInflight, idleMs, signal) {
      const idle = new Promise<void>((resolve) => {
        let timer: NodeJS.Timeout | undefined;
        const check = (): void => {
          if (pending.size > maxInflight) {
            clearTimeout(timer);
            timer = undefined;
          } else if (timer === undefined) {
            timer = setTimeout(() => {
              listeners.delete(check);
              resolve();
            }, idleMs);
          }
        };
        listeners.add(check);
        signal.addEventListener('abort', () => {
          clearTimeout(timer);
          listeners.delete(check);
        });
        check();
      });
      return abortable(idle, signal);
    },
    detach() {
      page.off('request', onStart);
      page.off('requestfinished', onEnd);
      page.off('requestfailed', onEnd);
      listeners.clear();
    },
  };
}
