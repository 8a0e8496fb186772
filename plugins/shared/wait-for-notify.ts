import { abortable } from '../../src/core/deadline.js';

/** Lets consumers sleep until a producer has news, a time limit passes, or the capture aborts. */
export class Wakeup {
  private readonly waiting = new Set<() => void>();

  /** Wakes every consumer waiting now. */
  notify(): void {
    for (const wake of this.waiting) wake();
    this.waiting.clear();
  }

  /** Resolves on `notify()` or after `ms`; rejects when `signal` aborts. */
  async wait(ms: number, signal: AbortSignal): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    let wake: (() => void) | undefined;
    try {
      await abortable(
        new Promise<void>((resolve) => {
          wake = resolve;
          this.waiting.add(resolve);
          timer = setTimeout(resolve, ms);
        }),
        signal,
      );
    } finally {
      clearTimeout(timer);
      if (wake) this.waiting.delete(wake);
    }
  }
}
