/**
 * Chromium reads only the last `--disable-features` and the last `--enable-features` on its command
 * line: a second switch replaces the first whole (base::CommandLine keeps one value per switch).
 * Playwright passes its own lists before the caller's arguments, so a list of the engine's or an
 * operator's own, passed as a second switch, used to switch Playwright's back on: HTTPS upgrades of
 * http:// targets, paint holding, third-party storage partitioning, the fix for cross-origin
 * redirects under request interception. So the engine passes one switch of each, holding
 * Playwright's features, its own and the operator's.
 *
 * Playwright's lists as playwright-core 1.65 passes them (`chromiumSwitches`); they are not exported.
 * test/browser/chromium-features.test.ts reads them off a browser Playwright launched and fails when
 * they change.
 */
const PLAYWRIGHT_DISABLED_FEATURES = [
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'DestroyProfileOnBrowserClose',
  'HttpsUpgrades',
  'HttpsFirstBalancedModeAutoEnable',
  'LensOverlay',
  'MediaRouter',
  'PaintHolding',
  'ThirdPartyStoragePartitioning',
  'AvoidCorsURLLoaderRestartOnRedirect',
  'TcpPortRandomizationWin',
  'OptimizationHints',
  'NetworkTimeServiceQuerying',
  'AimEnabled',
  'PreconnectToSearch',
  'msForceBrowserSignIn',
  'msEdgeUpdateLaunchServicesPreferredVersion',
];
const PLAYWRIGHT_ENABLED_FEATURES = ['CDPScreenshotNewSurface', 'SkipListAccountsWithoutGaiaCookies'];

/**
 * Nothing phones home from a capture: translation and autofill's form queries to Google's servers.
 * And full Chromium (not the headless shell, which has no browser UI) gives every window, so every
 * context, a renderer of its own for the WebUI omnibox popup (`chrome://omnibox-popup.top-chrome/`,
 * a `--top-chrome-webui` renderer) that no capture ever shows: with it, a bare Playwright loop on
 * Chromium 156 took 16.4 s for 48 captures at c=4 and peaked at 2,020 MB; without, 8.5 s and 1,431 MB
 * (benchmarks/results/binaries.md).
 */
const ENGINE_DISABLED_FEATURES = ['Translate', 'AutofillServerCommunication', 'WebUIOmniboxPopup', 'WebUIOmniboxFullPopup', 'WebUIOmniboxAimPopup'];

const DISABLE = '--disable-features=';
const ENABLE = '--enable-features=';

/**
 * `args` with every feature switch in them folded into one `--disable-features` and one
 * `--enable-features`, each holding Playwright's own. A feature `args` enable is taken off the
 * disabled list.
 */
export function withFeatureSwitches(args: readonly string[]): string[] {
  const listed = (prefix: string): string[] => args.filter((arg) => arg.startsWith(prefix)).flatMap((arg) => arg.slice(prefix.length).split(',')).filter(Boolean);
  const enabled = listed(ENABLE);
  const disabled = [...PLAYWRIGHT_DISABLED_FEATURES, ...ENGINE_DISABLED_FEATURES, ...listed(DISABLE)].filter((name) => !enabled.includes(name));
  const rest = args.filter((arg) => !arg.startsWith(DISABLE) && !arg.startsWith(ENABLE));
  return [...rest, `${DISABLE}${[...new Set(disabled)].join(',')}`, `${ENABLE}${[...new Set([...PLAYWRIGHT_ENABLED_FEATURES, ...enabled])].join(',')}`];
}
