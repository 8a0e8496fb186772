import { abortable } from '../../src/core/deadline.js';

/** Lets one consumer sleep until a producer has news, a time limit passes, or the capture aborts. */
export class Wakeup {
  private wake: (() => void) | undefined;

  notify(): void {
    this.wake?.();
  }

  /** Resolves on `notify()` or after `ms`; rejects when `signal` aborts. */
  async wait(ms: number, signal: AbortSignal): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    try {
      await abortable(
        new Promise<void>((resolve) => {
          this.wake = resolve;
          timer = setTimeout(resolve, ms);
        }),
        signal,
      );
    } finally {
      clearTimeout(timer);
      this.wake = undefined;
    }
  }
}
