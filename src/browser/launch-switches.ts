/**
 * The switches Playwright gives a headless Chromium of its own accord, as playwright-core 1.65
 * passes them (`chromiumSwitches` and its headless ones; they are not exported), less its feature
 * lists, which chromium-features.ts merges with the engine's, and `--disable-ipc-flooding-protection`:
 * with Chromium's throttling of pages that flood the browser with messages (history.pushState or
 * location.hash in a loop) turned off, one such page stalled every capture.
 * test/browser/chromium-features.test.ts reads Playwright's off a browser it launched and fails
 * when they change.
 */
const PLAYWRIGHT_SWITCHES = [
  '--disable-field-trial-config',
  '--disable-background-networking',
  '--disable-background-timer-throttling',
  '--disable-backgrounding-occluded-windows',
  '--disable-back-forward-cache',
  '--disable-breakpad',
  '--disable-component-extensions-with-background-pages',
  '--disable-component-update',
  '--no-default-browser-check',
  '--disable-default-apps',
  '--disable-dev-shm-usage',
  '--disable-edgeupdater',
  '--disable-extensions',
  '--allow-pre-commit-input',
  '--disable-hang-monitor',
  '--disable-popup-blocking',
  '--disable-prompt-on-repost',
  '--disable-renderer-backgrounding',
  '--disable-updater-scheduler',
  '--force-color-profile=srgb',
  '--metrics-recording-only',
  '--no-first-run',
  '--password-store=basic',
  '--use-mock-keychain',
  '--no-service-autorun',
  '--disable-search-engine-choice-screen',
  '--unsafely-disable-devtools-self-xss-warnings',
  '--enable-unsafe-swiftshader',
  '--edge-skip-compat-layer-relaunch',
  '--disable-stack-profiler',
  '--disable-infobars',
  '--disable-sync',
  '--do-not-de-elevate',
  '--headless',
  '--hide-scrollbars',
  '--mute-audio',
  '--blink-settings=primaryHoverType=2,availableHoverTypes=2,primaryPointerType=4,availablePointerTypes=4',
];

/**
 * The whole command line of a browser on the profile `profile`, given to Playwright with
 * `ignoreDefaultArgs: true`, so that Chromium starts with no window: Playwright's own command line
 * for a persistent profile opens a first tab and waits for it to load, about 55 ms of every cold
 * start (benchmarks/results/cold-start.md), for a tab that captures never use.
 */
export function launchSwitches(profile: string, engineArgs: readonly string[]): string[] {
  return [...new Set([...PLAYWRIGHT_SWITCHES, ...engineArgs, `--user-data-dir=${profile}`, '--remote-debugging-pipe', '--no-startup-window'])];
}
