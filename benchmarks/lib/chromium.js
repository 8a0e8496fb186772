// The browser every contender drives: the system Chromium, never a downloaded one.

export const CHROMIUM_PATH = process.env.CAPTURE_CHROMIUM_PATH || '/usr/bin/chromium';

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
