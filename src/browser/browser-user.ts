import { existsSync, readFileSync } from 'node:fs';
import { chmod, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** An unprivileged account Chromium runs as when the engine runs as root. */
export interface BrowserUser {
  name: string;
  uid: number;
  gid: number;
}

/** Who runs Chromium and whether its sandbox is on. */
export interface BrowserIdentity {
  /** Set when the engine runs as root: Chromium runs as this user instead. */
  runAs?: BrowserUser;
  sandbox: boolean;
}

/** The account `npm run setup` creates for Chromium; `nobody` stands in where it does not exist. */
const SETUP_USER = 'capture-browser';
const FALLBACK_USER = 'nobody';
const SETPRIV = '/usr/bin/setpriv';

/**
 * Chromium's sandbox (seccomp filters, namespaces) cannot start as root, and Chromium refuses to
 * run as root with it on: so as root the engine runs Chromium as an unprivileged user, with the
 * sandbox on. `user: 'root'` keeps Chromium as root, which only works with `sandbox: false`.
 * Not root, Chromium runs as the engine's own user, sandbox on unless told otherwise.
 */
export function resolveBrowserIdentity(
  options: { user?: string; sandbox?: boolean },
  env: NodeJS.ProcessEnv = process.env,
  uid: number | undefined = process.getuid?.(),
): BrowserIdentity {
  const sandbox = options.sandbox ?? env.CAPTURE_BROWSER_SANDBOX !== 'false';
  const wanted = options.user ?? (env.CAPTURE_BROWSER_USER || undefined);
  if (uid !== 0) {
    if (wanted !== undefined) throw new Error(`Running Chromium as ${wanted} needs the engine to run as root`);
    return { sandbox };
  }
  const name = wanted ?? (lookUpUser(SETUP_USER) ? SETUP_USER : FALLBACK_USER);
  if (name === 'root') {
    if (sandbox) throw new Error('Chromium cannot run as root with its sandbox on: set CAPTURE_BROWSER_SANDBOX=false, or run it as another user');
    return { sandbox };
  }
  const runAs = lookUpUser(name);
  if (!runAs) throw new Error(`No user named ${name} to run Chromium as (CAPTURE_BROWSER_USER)`);
  if (!existsSync(SETPRIV)) throw new Error(`${SETPRIV} (util-linux) is needed to run Chromium as ${name}`);
  return { runAs, sandbox };
}

/** A user of /etc/passwd by name or number. */
function lookUpUser(nameOrId: string): BrowserUser | undefined {
  let passwd = '';
  try {
    passwd = readFileSync('/etc/passwd', 'utf8');
  } catch {
    return undefined;
  }
  for (const line of passwd.split('\n')) {
    const [name, , uid, gid] = line.split(':');
    if (name && uid && gid && (name === nameOrId || uid === nameOrId)) return { name, uid: Number(uid), gid: Number(gid) };
  }
  return undefined;
}

/**
 * A launcher Playwright can start in Chromium's place: it drops to `user` and runs Chromium with
 * Playwright's arguments as they are (setpriv execs, so Chromium keeps the launcher's process).
 */
export async function writeLauncher(dir: string, executablePath: string, user: BrowserUser): Promise<string> {
  const file = path.join(dir, `chromium-as-${user.uid}.sh`);
  const quoted = `'${executablePath.replaceAll("'", `'\\''`)}'`;
  const script = `#!/bin/sh\n# Written by capture-engine: Chromium as ${user.name}, so that its sandbox can run.\nexec ${SETPRIV} --reuid=${user.uid} --regid=${user.gid} --clear-groups -- ${quoted} "$@"\n`;
  // Written aside and renamed: a browser launching meanwhile never runs half a script.
  const partial = `${file}.${process.pid}.${Date.now()}`;
  await writeFile(partial, script, { mode: 0o755 });
  await rename(partial, file);
  // The user must be able to reach its profile below `dir`: search, not listing, for others.
  const { mode } = await stat(dir);
  if ((mode & 0o001) === 0) await chmod(dir, (mode & 0o777) | 0o001);
  return file;
}
