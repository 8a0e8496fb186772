import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { chromium } from 'playwright-core';
import { findChromium } from '../../src/browser/chromium-path.js';
import { createTestEngine } from '../helpers/engine.js';
import { processTree } from '../helpers/processes.js';
import { until } from '../helpers/wait.js';
import { decode, near } from '../helpers/pixels.js';

/**
 * The engine gives Chromium its whole command line (Playwright's switches with its own), and
 * Chromium keeps only the last `--disable-features` and `--enable-features` of it. These read the
 * switches off the running browsers' command lines in /proc: what Playwright passes on its own,
 * and what reaches the engine's browser.
 */
const tempDir = mkdtempSync(path.join(os.tmpdir(), 'chromium-features-'));
// Reachable by the user Chromium runs as when the tests run as root, so that its sandbox is on.
chmodSync(tempDir, 0o711);
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
      expect(disabled).toEqual(expect.arrayContaining([...playwrightDisabled.filter((name) => name !== 'PaintHolding'), 'Translate', 'AutofillServerCommunication', 'WebUIOmniboxPopup', 'BackForwardCache']));
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

  // Issue 49: full Chromium gives every window a renderer for its omnibox popup, which no capture shows.
  it.runIf(existsSync(FULL_CHROMIUM))('on full Chromium, no window of the engine has a top-chrome WebUI renderer (a bare launch has one per context)', async () => {
    const bareProfile = path.join(tempDir, 'bare-full');
    const bare = await chromium.launchPersistentContext(bareProfile, { executablePath: FULL_CHROMIUM, args: process.getuid?.() === 0 ? ['--no-sandbox'] : [] });
    try {
      await until(() => topChromeWebUiRenderers(bareProfile) > 0, 'the bare launch to open its omnibox popup');
    } finally {
      await bare.close();
    }
    const engineDir = path.join(tempDir, 'engine-full');
    const engine = await createTestEngine({ tempDir: engineDir, executablePath: FULL_CHROMIUM, warmContexts: 2 });
    try {
      await until(() => engine.stats.warm === 2, 'two warm contexts');
      expect(renderers(engineDir)).toBeGreaterThanOrEqual(2);
      expect(topChromeWebUiRenderers(engineDir)).toBe(0);
    } finally {
      await engine.close();
    }
  });
});

describe.runIf(process.platform === 'linux')('browserProcessModel', () => {
  // Issue 49: on Linux the network service runs in the browser process by default, and a memory-first
  // deployment can run the GPU service there too.
  it("by default runs a GPU process and no network process; 'isolated' runs both, unsandboxed; 'compact' neither, and still draws a page and a video drawn frame by frame", async () => {
    const dirs = { standard: path.join(tempDir, 'standard'), isolated: path.join(tempDir, 'isolated'), compact: path.join(tempDir, 'compact') };
    const standard = await createTestEngine({ tempDir: dirs.standard, warmContexts: 1 });
    const isolated = await createTestEngine({ tempDir: dirs.isolated, warmContexts: 1, browserProcessModel: 'isolated' });
    const compact = await createTestEngine({ tempDir: dirs.compact, warmContexts: 1, browserProcessModel: 'compact' });
    try {
      await until(() => standard.stats.warm === 1 && isolated.stats.warm === 1 && compact.stats.warm === 1, 'a warm context in each');
      expect(serviceProcesses(dirs.standard)).toEqual({ gpu: 1, network: 0 });
      expect(serviceProcesses(dirs.isolated)).toEqual({ gpu: 1, network: 1 });
      expect(serviceProcesses(dirs.compact)).toEqual({ gpu: 0, network: 0 });
      // The default's premise: apart, neither service is confined (no seccomp filter on any thread).
      // Should a Chromium sandbox them on Linux, this fails and the default wants another look.
      expect(seccompModes(dirs.isolated, '--utility-sub-type=network.mojom.NetworkService')).toEqual([0]);
      expect(seccompModes(dirs.isolated, '--type=gpu-process')).toEqual([0]);
      expect(seccompModes(dirs.isolated, '--type=renderer')).toEqual([2]);
      for (const engine of [standard, compact]) {
        const shot = await engine.capture({ html: '<body style="margin:0;height:100vh;background:#00ff00"></body>', viewport_width: 200, viewport_height: 100 });
        const image = await decode(shot.data as Buffer);
        expect([image.width, image.height]).toEqual([200, 100]);
        expect(near(image.at(100, 50), '#00ff00')).toBe(true);
      }
      const video = await compact.capture({ html: '<body style="margin:0;background:#0000ff"></body>', scenario: 'record', format: 'webm', duration: 1, fps: 10, viewport_width: 160, viewport_height: 120 });
      expect((await video.buffer()).subarray(0, 4)).toEqual(Buffer.from([0x1a, 0x45, 0xdf, 0xa3]));
    } finally {
      await Promise.all([standard.close(), isolated.close(), compact.close()]);
    }
  });

  it('refuses an unknown model, and one with switches with a remote browser, by the option', async () => {
    await expect(createTestEngine({ tempDir, browserProcessModel: 'tiny' as 'compact' })).rejects.toThrow(/'browserProcessModel' must be one of isolated, network-in-browser, compact, got tiny/);
    await expect(createTestEngine({ tempDir, browserProcessModel: 'compact', connectEndpoint: 'ws://127.0.0.1:9/' })).rejects.toThrow(/'browserProcessModel' 'compact' needs a local browser/);
    await expect(createTestEngine({ tempDir, browserProcessModel: 'network-in-browser', connectEndpoint: 'ws://127.0.0.1:9/' })).rejects.toThrow(/'browserProcessModel' 'network-in-browser' needs a local browser/);
  });
});

/** The seccomp modes (0 none, 2 filter) of the threads of the processes below the browser under `dir` whose command line has `marker`, each mode once. */
function seccompModes(dir: string, marker: string): number[] {
  const modes = new Set<number>();
  for (const pid of treePids(dir)) {
    if (!readArgs(String(pid)).includes(marker)) continue;
    for (const task of readdirSync(`/proc/${pid}/task`)) modes.add(Number(/^Seccomp:\s+(\d)/m.exec(readFileSync(`/proc/${pid}/task/${task}/status`, 'utf8'))?.[1]));
  }
  return [...modes];
}

/** How many GPU and network service processes run below the browser whose profile is under `dir`. */
function serviceProcesses(dir: string): { gpu: number; network: number } {
  const tree = treeCommandLines(dir);
  return {
    gpu: tree.filter((args) => args.includes('--type=gpu-process')).length,
    network: tree.filter((args) => args.includes('--utility-sub-type=network.mojom.NetworkService')).length,
  };
}

const FULL_CHROMIUM = '/usr/bin/chromium';

/** The command lines of the browser whose profile is under `dir` and of every process below it. */
function treeCommandLines(dir: string): string[][] {
  return treePids(dir).map((pid) => readArgs(String(pid)));
}

/** The browser whose profile is under `dir` and every process below it. */
function treePids(dir: string): number[] {
  const isBrowser = (args: string[]): boolean => args.some((arg) => arg.startsWith(`--user-data-dir=${dir}`)) && !args.some((arg) => arg.startsWith('--type='));
  return processTree(Number(readdirSync('/proc').find((pid) => /^\d+$/.test(pid) && isBrowser(readArgs(pid)))));
}

/** A process's arguments; Chromium's child processes rewrite theirs into one string, spaced. */
function readArgs(pid: string): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split(/[\0 ]/);
  } catch {
    return [];
  }
}

const renderers = (dir: string): number => treeCommandLines(dir).filter((args) => args.includes('--type=renderer')).length;
const topChromeWebUiRenderers = (dir: string): number => treeCommandLines(dir).filter((args) => args.includes('--type=renderer') && args.includes('--top-chrome-webui')).length;

