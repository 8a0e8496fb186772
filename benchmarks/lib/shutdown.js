// Ending a coordinating script cleanly: on Ctrl-C/SIGTERM, or when a watchdog fires, run its
// cleanup (which stops its child processes and what they started) before exiting.

/** On SIGINT or SIGTERM: `cleanup(signal)`, then exit 130. */
export function cleanupOnSignal(cleanup) {
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.once(signal, () => {
      Promise.resolve()
        .then(() => cleanup(signal))
        .finally(() => process.exit(130));
    });
  }
}

/** After `ms`: `cleanup()`, then exit 2. The timer does not keep the process alive. */
export function startWatchdog(ms, cleanup) {
  const timer = setTimeout(() => {
    Promise.resolve()
      .then(() => cleanup())
      .finally(() => process.exit(2));
  }, ms);
  timer.unref();
  return timer;
}

/** Memoizes an async cleanup so that a signal during a normal cleanup does not run it twice. */
export function once(fn) {
  let running;
  return () => (running ??= fn());
}
