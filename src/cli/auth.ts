import { existsSync } from 'node:fs';
import { chmod, writeFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { UsageError } from './exit-codes.js';
import { readFlags, type CommandFlags } from './shot-flags.js';
import { runShots, type RunOptions, type WriteResult } from './shot.js';
import { browserArgs } from './browser-args.js';
import { checkBrowser } from './scraper-options.js';
import { urlOrFile } from './shot-scraper.js';
import { LocalFiles } from './local-files.js';

/**
 * `capture-engine auth URL auth.json`: shot-scraper's `auth` (release 1.11, shot_scraper/cli.py):
 * a browser window on the page for you to sign in, then its storage state saved for `-a auth.json`.
 * The window is the full Chromium of this machine, driven by Playwright as shot-scraper does: your
 * own browsing, not a capture, so the engine's egress guard is not between it and the sites.
 * `--headless` signs in without a window, through the engine: the page loads (with its `-j`,
 * `--wait`, `--wait-for`) and the state it leaves is saved.
 */
const FLAGS: CommandFlags = {
  usage: `capture-engine auth URL auth.json [--timeout MS] [--devtools] [--headless]   (auth.json: - prints it)
  Opens Chromium on URL in a window for you to sign in. Hit Enter (or close standard input) when you
  have, and the browser's cookies and each origin's localStorage are saved to auth.json (mode 600) for
  -a auth.json. --timeout MS saves after MS ms without Enter. A window needs a display (DISPLAY or
  WAYLAND_DISPLAY). --headless: no window: the page loads through the engine (with -j SCRIPT, --wait,
  --wait-for) and the state it leaves is saved, a scripted sign-in.
  Also -b/--browser chromium, --browser-arg, --user-agent, --log-console.`,
  own: { devtools: 'yes-no', headless: 'yes-no' },
  second: 'state-file',
};

/** A headed Chromium: the headless shell the engine prefers has no window. */
const HEADED = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable'];

export async function auth(args: string[]): Promise<void> {
  const { own, params } = await readFlags(args, FLAGS);
  if (own.help) return void process.stdout.write(`${FLAGS.usage}\n`);
  const file = own['state-file'];
  if (typeof params.url !== 'string' || typeof file !== 'string') throw new UsageError('auth needs a URL and the file to save the state to (auth.json, or - for standard output)', FLAGS.usage);
  checkBrowser(own.browser, FLAGS.usage);
  if (own.headless === true) return headless(own, params, file);
  if (process.env.DISPLAY === undefined && process.env.WAYLAND_DISPLAY === undefined && process.platform === 'linux') {
    throw new UsageError('auth opens a browser window for you to sign in, and there is no display here (DISPLAY is not set): run it where there is one and copy auth.json, or sign in by script with --headless -j', FLAGS.usage);
  }
  await saveState(await signInInWindow(own, params), file);
}

async function signInInWindow(own: Record<string, unknown>, params: Record<string, unknown>): Promise<unknown> {
  const { chromium } = await import('../core/loading/playwright.js');
  const executablePath = process.env.CAPTURE_CHROMIUM_PATH ?? HEADED.find((path) => existsSync(path));
  const args = browserArgs((own['browser-arg'] as string[] | undefined) ?? [], FLAGS.usage);
  const browser = await chromium.launch({ headless: false, executablePath, args: [...args, ...(own.devtools === true ? ['--auto-open-devtools-for-tabs'] : [])] });
  const localFiles = new LocalFiles();
  try {
    const context = await browser.newContext(typeof params.user_agent === 'string' ? { userAgent: params.user_agent } : {});
    const page = await context.newPage();
    if (own['log-console'] === true) page.on('console', (message) => void process.stderr.write(`${message.text()}\n`));
    await page.goto(await urlOrFile(params.url as string, localFiles));
    process.stderr.write('Hit <enter> after you have signed in:\n');
    await enterOrTimeout(params.timeout === undefined ? undefined : Number(params.timeout));
    return await context.storageState();
  } finally {
    await browser.close();
    await localFiles.close();
  }
}

/** A line on standard input, its end, or `timeoutMs` passing. */
function enterOrTimeout(timeoutMs: number | undefined): Promise<void> {
  return new Promise((resolve) => {
    const lines = createInterface({ input: process.stdin });
    const timer = timeoutMs === undefined ? undefined : setTimeout(done, timeoutMs);
    function done(): void {
      clearTimeout(timer);
      lines.close();
      resolve();
    }
    lines.once('line', done);
    lines.once('close', done);
  });
}

/** The state a page leaves, read in its context once the engine has it ready. */
async function headless(own: Record<string, unknown>, params: Record<string, unknown>, file: string): Promise<void> {
  let state: unknown;
  const onSession: RunOptions['onSession'] = ({ hooks }) => (hooks.afterReady = async (ctx) => void (state = await ctx.browserContext.storageState()));
  own.output = ['-'];
  const write: WriteResult = () => saveState(state, file);
  await runShots(own, { ...params, format: 'text' }, FLAGS.usage, write, { onSession });
}

/** As shot-scraper writes it: JSON indented 2 and a newline, the file readable by its owner alone; `-` on standard output. */
async function saveState(state: unknown, file: string): Promise<void> {
  const json = `${JSON.stringify(state, null, 2)}\n`;
  if (file === '-') return void process.stdout.write(json);
  await writeFile(file, json, { mode: 0o600 });
  await chmod(file, 0o600);
}
