import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { chromium } from 'playwright-core';
import { findChromium } from '../../src/browser/chromium-path.js';
import { createTestEngine } from '../helpers/engine.js';

/**
 * The engine gives Chromium its whole command line (Playwright's switches with its own), and
 * Chromium keeps only the last `--disable-features` and `--enable-features` of it. These read the
 * switches off the running browsers' command lines in /proc: what Playwright passes on its own,
 * and what reaches the engine's browser.
 */
const tempDir = mkdtempSync(path.join(os.tmpdir(), 'chromium-features-'));
afterAll(async () => rm(tempDir, { recursive: true, force: true }));

/** The command line of the browser process whose profile is under `dir`. */
function browserCommandLine(dir: string): string[] {
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    let args: string[];
    try {
      args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    if (args.some((arg) => arg.startsWith(`--user-data-dir=${dir}`))) return args;
  }
  throw new Error(`no browser with a profile under ${dir}`);
}

/** What Chromium applies: the last switch's list. */
function effective(args: string[], prefix: '--disable-features=' | '--enable-features='): string[] {
  return args.filter((arg) => arg.startsWith(prefix)).at(-1)?.slice(prefix.length).split(',') ?? [];
}

/**
 * Playwright's switches the engine leaves out or decides itself: the persistent profile's first
 * tab, the flooding guard, the sandbox, the profile's path and the feature lists (merged above).
 */
const NOT_KEPT = [/^about:blank$/, /^--disable-ipc-flooding-protection$/, /^--no-sandbox$/, /^--(user-data-dir|disable-features|enable-features)=/];

describe.runIf(process.platform === 'linux')('the switches Chromium gets', () => {
  it("keep Playwright's switches and every feature it turns off and on, the engine's own, and the operator's", async () => {
    const playwrightProfile = path.join(tempDir, 'playwright');
    const launched = await chromium.launchPersistentContext(playwrightProfile, { executablePath: findChromium(), args: process.getuid?.() === 0 ? ['--no-sandbox'] : [] });
    const playwrights = browserCommandLine(playwrightProfile);
    await launched.close();
    const playwrightDisabled = effective(playwrights, '--disable-features=');
    const playwrightEnabled = effective(playwrights, '--enable-features=');
    expect(playwrightDisabled).toContain('HttpsUpgrades');

    const engineDir = path.join(tempDir, 'engine');
    const engine = await createTestEngine({ tempDir: engineDir, warmContexts: 0, browserArgs: ['--disable-features=BackForwardCache', '--enable-features=PaintHolding,WebMCPTesting'] });
    try {
      const engines = browserCommandLine(engineDir);
      const disabled = effective(engines, '--disable-features=');
      const enabled = effective(engines, '--enable-features=');
      // Playwright's lists hold (a change in them fails here: update src/browser/chromium-features.ts).
      expect(disabled).toEqual(expect.arrayContaining([...playwrightDisabled.filter((name) => name !== 'PaintHolding'), 'Translate', 'AutofillServerCommunication', 'BackForwardCache']));
      expect(enabled).toEqual(expect.arrayContaining([...playwrightEnabled, 'PaintHolding', 'WebMCPTesting']));
      // What the operator turns on comes off the list of features turned off.
      expect(disabled).not.toContain('PaintHolding');
      // Every other switch of Playwright's holds (a change fails here: update src/browser/launch-switches.ts).
      const playwrightSwitches = playwrights.slice(1).filter((arg) => !NOT_KEPT.some((pattern) => pattern.test(arg)));
      expect(playwrightSwitches).toContain('--headless');
      expect(engines).toEqual(expect.arrayContaining(playwrightSwitches));
      // Chromium starts without a tab: a capture's context opens the first one.
      expect(engines).toContain('--no-startup-window');
      expect(engines).not.toContain('about:blank');
    } finally {
      await engine.close();
    }
  });
});
