import { UsageError } from './exit-codes.js';

/** At most this many `--browser-arg`s, each at most `MAX_LENGTH` characters. */
const MAX_ARGS = 32;
const MAX_LENGTH = 1024;

/**
 * Switches that would take the browser out of the engine's hands, with why: the pool drives Chromium
 * over a pipe on a profile of its own, every request goes through the egress guard's proxy, and each
 * renderer's heap is capped. Chromium reads only the last of a switch, so a second one replaces the
 * engine's. `--enable-features` and `--disable-features` are merged with the engine's lists instead.
 */
const REFUSED: Record<string, string> = {
  'remote-debugging-port': 'the engine drives Chromium over a pipe; a debugging port would open the browser to any local process',
  'remote-debugging-address': 'the engine drives Chromium over a pipe; a debugging port would open the browser to any local process',
  'remote-debugging-pipe': 'the engine drives Chromium over its own pipe',
  'remote-debugging-io-pipes': 'the engine drives Chromium over its own pipe',
  'remote-allow-origins': 'the engine drives Chromium over a pipe; a debugging port would open the browser to any local process',
  'user-data-dir': 'each browser runs on a profile of its own, removed when it closes',
  'proxy-server': "every request goes through the egress guard's proxy (a named proxy: CAPTURE_PROXIES and --proxy)",
  'proxy-pac-url': "every request goes through the egress guard's proxy",
  'proxy-bypass-list': "every request goes through the egress guard's proxy",
  'no-proxy-server': "every request goes through the egress guard's proxy",
  'proxy-auto-detect': "every request goes through the egress guard's proxy",
  'host-resolver-rules': 'the egress guard resolves and checks every address',
  'host-rules': 'the egress guard resolves and checks every address',
  'force-webrtc-ip-handling-policy': "WebRTC stays behind the egress guard's proxy",
  'js-flags': "the engine caps each renderer's heap with it (CAPTURE_RENDERER_MEMORY_MB sets the cap)",
  'single-process': 'the engine watches and kills renderers one by one',
  'no-startup-window': 'the engine sets it',
  headless: 'the engine sets it',
};

/**
 * shot-scraper's `--browser-arg`: extra Chromium switches, bounded and checked. The CLI's user owns
 * the machine, so most switches are theirs to give; those that would break the engine's control
 * of the browser or its egress guard are refused, naming the switch and why.
 */
export function browserArgs(given: readonly string[], usage: string): string[] {
  if (given.length > MAX_ARGS) throw new UsageError(`--browser-arg is given ${given.length} times: at most ${MAX_ARGS}`, usage);
  for (const arg of given) {
    const shown = JSON.stringify(arg.length > 80 ? `${arg.slice(0, 80)}…` : arg);
    if (arg.length > MAX_LENGTH || /[\0\r\n]/.test(arg)) throw new UsageError(`--browser-arg ${shown}: at most ${MAX_LENGTH} characters on one line`, usage);
    const name = /^--([a-z0-9][a-z0-9-]*)(?:=|$)/i.exec(arg)?.[1]?.toLowerCase();
    if (name === undefined) throw new UsageError(`--browser-arg ${shown} is not a Chromium switch (--name or --name=value)`, usage);
    const why = REFUSED[name];
    if (why !== undefined) throw new UsageError(`--browser-arg --${name} is refused: ${why}`, usage);
  }
  return [...given];
}
