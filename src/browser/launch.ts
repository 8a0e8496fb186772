import { chown, mkdtemp, readdir, readlink, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { chromium } from '../core/loading/playwright.js';
import { chromiumArgs } from './chromium-path.js';
import { launchSwitches } from './launch-switches.js';
import type { Logger } from '../core/telemetry/logger.js';
import { allowIn, writeLauncher, type BrowserIdentity } from './browser-user.js';
import { findProcessWithArg } from './process-tree.js';

export interface LaunchOptions {
  executablePath: string;
  /** Extra Chromium flags. */
  args: readonly string[];
  /** Connect to a remote browser (`ws://...`) instead of launching one. */
  connectEndpoint?: string;
  /** Where the browser profile lives while it runs. */
  tempDir: string;
  /** Writes what the profile must hold before Chromium starts on it (e.g. egress preferences). */
  prepareProfile?: (profileDir: string) => Promise<void>;
  /** Who runs a local Chromium and whether its sandbox is on. */
  identity: BrowserIdentity;
  /** V8's heap limit in each renderer (MB): a page past it crashes its own tab, not the machine. */
  rendererHeapMb?: number;
  /** The User-Agent of the browser's contexts, made from Chromium's own (absent: Chromium's as it is). */
  userAgent?: (chromium: string) => string;
  log: Logger;
}

export interface LaunchedBrowser {
  browser: Browser;
  /** Removes what the browser left on disk (its profile); idempotent. */
  dispose: () => Promise<void>;
  /** The local browser's process, when /proc tells it. */
  pid?: number;
}

/** A browser for captures: a remote one when an endpoint is given, else a local Chromium. */
export async function launchBrowser(options: LaunchOptions): Promise<LaunchedBrowser> {
  if (options.connectEndpoint) return { browser: await chromium.connect(options.connectEndpoint), dispose: async () => undefined };
  return launchLocal(options);
}

/**
 * A local Chromium on a profile of its own: some policies (WebRTC limited to proxied UDP) only
 * take effect as profile preferences, which capture contexts inherit.
 */
async function launchLocal(options: LaunchOptions): Promise<LaunchedBrowser> {
  await removeAbandonedProfiles(options.tempDir);
  const profile = await mkdtemp(path.join(options.tempDir, `profile-${hostLabel()}-${process.pid}-`));
  let removal: Promise<void> | undefined;
  const launcher = `${profile}.sh`;
  const dispose = (): Promise<void> => (removal ??= removeProfile(profile).then(() => rm(launcher, { force: true })));
  try {
    await options.prepareProfile?.(profile);
    const { runAs, sandbox } = await reachableIdentity(options);
    if (runAs) {
      await chownTree(profile, runAs.uid, runAs.gid);
      await writeLauncher(launcher, options.executablePath, runAs);
    }
    const heapFlag = options.rendererHeapMb === undefined ? [] : [`--js-flags=--max-old-space-size=${options.rendererHeapMb}`];
    const persistent = await chromium.launchPersistentContext(profile, {
      executablePath: runAs ? launcher : options.executablePath,
      args: launchSwitches(profile, chromiumArgs([...heapFlag, ...options.args], { sandbox })),
      ignoreDefaultArgs: true,
      chromiumSandbox: sandbox,
      // Playwright's own scratch folder (downloads, traces), inside the profile so that it goes with
      // it, also when a killed process leaves both behind for the next start to remove.
      ...({ artifactsDir: path.join(profile, ARTIFACTS_DIR) } as object),
      // Chromium keeps caches in its home: the profile is the one place its user may write. Its audio
      // client (PulseAudio, for a page playing sound) makes a runtime folder, in /tmp without
      // XDG_RUNTIME_DIR and never removed: in the profile it goes with it.
      env: { ...process.env, XDG_RUNTIME_DIR: profile, ...(runAs ? { HOME: profile } : {}) },
      headless: true,
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
    const browser = persistent.browser();
    if (!browser) throw new Error('Chromium started without a browser handle');
    return { browser, dispose, pid: findProcessWithArg(`--user-data-dir=${profile}`) };
  } catch (error) {
    await dispose();
    throw error;
  }
}

/**
 * Removes a browser profile and the directory of Chromium's singleton socket that it links to:
 * Chromium removes that one itself on a clean exit, but a crashed or killed browser leaves it in
 * the system temp directory.
 */
async function removeProfile(profile: string): Promise<void> {
  const socket = await readlink(path.join(profile, 'SingletonSocket')).catch(() => undefined);
  const socketDir = socket && path.dirname(socket);
  if (socketDir && path.basename(socketDir).startsWith('org.chromium.Chromium.')) await rm(socketDir, { recursive: true, force: true }).catch(() => undefined);
  await rm(profile, { recursive: true, force: true, maxRetries: 3 }).catch(() => undefined);
}

/**
 * The identity Chromium can run with: its unprivileged user must reach the temp directory. Where
 * it cannot (a private TMPDIR) and the operator named no user, Chromium runs as the engine's own
 * user without its sandbox, as before there was one, and the operator is told why.
 */
async function reachableIdentity(options: LaunchOptions): Promise<BrowserIdentity> {
  const { runAs, chosen } = options.identity;
  const blocked = runAs && (await allowIn(options.tempDir, runAs));
  if (!runAs || !blocked) return options.identity;
  const advice = `${runAs.name} cannot reach the temp directory through ${blocked}: allow it (chmod o+x ${blocked}) or choose another tempDir (TMPDIR)`;
  if (chosen) throw new Error(`Chromium runs as ${advice}`);
  options.log.warn({ blocked }, `Chromium runs without its sandbox: ${advice}, or set CAPTURE_BROWSER_USER`);
  return { sandbox: false };
}

/** Playwright's scratch folder in a profile (its launch protocol's `artifactsDir`, which the Node API passes through). */
const ARTIFACTS_DIR = 'playwright-artifacts';

/** Hands a folder and everything in it to `uid`. */
async function chownTree(dir: string, uid: number, gid: number): Promise<void> {
  await chown(dir, uid, gid);
  for (const entry of await readdir(dir, { recursive: true })) await chown(path.join(dir, entry), uid, gid);
}

/**
 * A profile's name: `profile-<host>-<pid of the Node process that launched it>-<random>`; the
 * launcher that runs Chromium as another user sits beside it, with `.sh` added.
 */
const PROFILE_NAME = /^profile-(.+)-(\d+)-[^-]+$/;

/** The host part of profile names: the host name, reduced to characters safe in a file name. */
function hostLabel(): string {
  return hostname().replace(/[^A-Za-z0-9.]/g, '_') || 'host';
}

/**
 * Removes the profiles of this host's processes that are gone: a process killed with SIGKILL
 * (a worker lost mid-job) cannot remove its own. Profiles of other hosts sharing the directory,
 * and of processes still alive, are left alone.
 */
async function removeAbandonedProfiles(tempDir: string): Promise<void> {
  const names = await readdir(tempDir).catch(() => [] as string[]);
  const host = hostLabel();
  await Promise.all(
    names.map(async (name) => {
      const owner = PROFILE_NAME.exec(name);
      if (owner?.[1] === host && !isRunning(Number(owner[2]))) await removeProfile(path.join(tempDir, name));
    }),
  );
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
