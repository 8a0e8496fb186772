// The browser every contender drives: the system Chromium, never a downloaded one.

export const CHROMIUM_PATH = process.env.CAPTURE_CHROMIUM_PATH || '/usr/bin/chromium';

// Chromium's headless shell (Debian's chromium-headless-shell), for the `floor-fast-shell` contender.
export const HEADLESS_SHELL_PATH = process.env.BENCH_HEADLESS_SHELL_PATH || '/usr/lib/chromium/chromium-headless-shell';

// Closed network, running as root (hence --no-sandbox).
export const LAUNCH_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];
