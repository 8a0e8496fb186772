/**
 * Where Chromium runs its network and GPU services.
 * - `isolated`: a process each, as Chromium runs them.
 * - `network-in-browser`: the network service inside the browser process, the GPU process apart.
 * - `compact`: both inside the browser process.
 *
 * On Linux neither service runs in a sandbox (measured on Chromium 156, docs/configuration.md,
 * "Where Chromium runs its services"): Chromium starts its network service with
 * `--service-sandbox-type=none`, and the GPU process's seccomp filter fails to engage once SwiftShader's
 * threads run. A process apart buys containment there, not confinement: a crash in it is restarted
 * by Chromium instead of taking the browser and every capture running in it along.
 */
const SWITCHES = {
  isolated: [],
  'network-in-browser': ['--enable-features=NetworkServiceInProcess2'],
  compact: ['--in-process-gpu', '--enable-features=NetworkServiceInProcess2'],
} as const satisfies Record<string, readonly string[]>;

export type BrowserProcessModel = keyof typeof SWITCHES;

/**
 * The network service in the browser process where Chromium leaves it unsandboxed (Linux): one
 * process fewer (about 70 MiB RSS on the headless shell), at the price of a crash in a network
 * stack that Android WebView also runs in its browser process. Elsewhere Chromium may sandbox it.
 * The GPU process stays apart: a hostile page's WebGL reaches SwiftShader there.
 */
export function defaultProcessModel(platform: NodeJS.Platform = process.platform): BrowserProcessModel {
  return platform === 'linux' ? 'network-in-browser' : 'isolated';
}

/**
 * The launch switches of `model` (the platform's default when not given), checked: an unknown model,
 * or one with switches for a browser the engine does not launch, is refused by the option's name.
 */
export function processModelSwitches(model: unknown, remote: boolean): string[] {
  if (model === undefined) return remote ? [] : [...SWITCHES[defaultProcessModel()]];
  if (typeof model !== 'string' || !Object.hasOwn(SWITCHES, model)) {
    throw new TypeError(`Option 'browserProcessModel' must be one of ${Object.keys(SWITCHES).join(', ')}, got ${String(model)}`);
  }
  const switches = SWITCHES[model as BrowserProcessModel];
  if (remote && switches.length > 0) throw new TypeError(`Option 'browserProcessModel' '${model}' needs a local browser, not 'connectEndpoint'`);
  return [...switches];
}
