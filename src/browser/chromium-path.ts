import { existsSync } from 'node:fs';
import { chromium } from '../core/loading/playwright.js';
import { withFeatureSwitches } from './chromium-features.js';

/**
 * Chromium's headless shell (Debian's chromium-headless-shell) comes first: it draws the same pages
 * without the full browser's UI layers and costs about a third of the CPU per capture
 * (benchmarks/results/cpu.md). Its binary, not the wrapper script that would stay between us and it.
 */
const HEADLESS_SHELL_CANDIDATES = ['/usr/lib/chromium/chromium-headless-shell', '/usr/bin/chromium-headless-shell'];

const SYSTEM_CANDIDATES = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
];

/**
 * Finds the Chromium to drive, never downloading one: the explicit option, then
 * `CAPTURE_CHROMIUM_PATH`, then the system's headless shell, then a browser installed by
 * Playwright, then the system's full Chromium.
 */
export function findChromium(explicit?: string, env: NodeJS.ProcessEnv = process.env): string {
  const chosen = explicit ?? env.CAPTURE_CHROMIUM_PATH;
  if (chosen) {
    if (!existsSync(chosen)) throw new Error(`Chromium not found at ${chosen}`);
    return chosen;
  }
  const candidates = [...HEADLESS_SHELL_CANDIDATES, playwrightInstalledChromium(), ...SYSTEM_CANDIDATES];
  const found = candidates.find((path) => path !== undefined && existsSync(path));
  if (!found) {
    throw new Error(
      'No Chromium found: install it (`npm run setup` installs Debian\'s chromium-headless-shell) or set CAPTURE_CHROMIUM_PATH',
    );
  }
  return found;
}

function playwrightInstalledChromium(): string | undefined {
  try {
    return chromium.executablePath();
  } catch {
    return undefined;
  }
}

/**
 * Flags for a closed network and a server: nothing phones home, nothing prompts. The sandbox is
 * on unless `sandbox` is false; by default it is off only for root, whom Chromium refuses to run
 * sandboxed (the engine runs Chromium as another user instead: browser-user.ts).
 */
export function chromiumArgs(extra: readonly string[] = [], { sandbox = process.getuid?.() !== 0 }: { sandbox?: boolean } = {}): string[] {
  const args = [
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
    '--disable-quic',
    '--disable-dev-shm-usage',
    '--disable-gpu',
    '--mute-audio',
    '--hide-scrollbars',
    '--force-color-profile=srgb',
    '--proxy-bypass-list=<-loopback>',
    // WebRTC's UDP past the egress proxy: the headless shell honours only this switch (see chromium-preferences.ts).
    '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
  ];
  if (!sandbox) args.push('--no-sandbox');
  return withFeatureSwitches([...args, ...extra]);
}
