/**
 * Runs `shutdown` on the first SIGTERM or SIGINT; later ones change nothing. The listeners stay
 * registered: a library that watches signals too (signal-exit, under execa) raises a signal again
 * when no other listener is left for it, which killed the process in the middle of its drain and
 * left its browser running.
 */
export function onShutdownSignal(shutdown: () => void): void {
  let started = false;
  const first = (): void => {
    if (started) return;
    started = true;
    shutdown();
  };
  process.on('SIGTERM', first);
  process.on('SIGINT', first);
}
