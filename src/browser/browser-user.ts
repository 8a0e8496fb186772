import { existsSync, readFileSync } from 'node:fs';
import { chmod, stat, writeFile } from 'node:fs/promises';
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
  /** The user was named by the operator: where it cannot run Chromium, starting fails instead of falling back. */
  chosen?: boolean;
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
  return { runAs, sandbox, chosen: wanted !== undefined };
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
 * A launcher Playwright can start in Chromium's place, written to `file`: it drops to `user` and
 * runs Chromium with Playwright's arguments as they are (setpriv execs, so Chromium keeps the
 * launcher's process). It stays the engine's own file: the browser's user cannot change it.
 */
export async function writeLauncher(file: string, executablePath: string, user: BrowserUser): Promise<void> {
  const quoted = `'${executablePath.replaceAll("'", `'\\''`)}'`;
  const script = `#!/bin/sh\n# Written by capture-engine: Chromium as ${user.name}, so that its sandbox can run.\nexec ${SETPRIV} --reuid=${user.uid} --regid=${user.gid} --clear-groups -- ${quoted} "$@"\n`;
  await writeFile(file, script, { mode: 0o755 });
}

/**
 * Lets `user` reach the profiles in `dir`: search, not listing, for others on `dir`, which the
 * engine owns. Returns the first parent `user` cannot pass through, if any: the engine opens no
 * folder it did not make.
 */
export async function allowIn(dir: string, user: BrowserUser): Promise<string | undefined> {
  const { mode } = await stat(dir);
  if ((mode & 0o001) === 0) await chmod(dir, (mode & 0o777) | 0o001);
  for (let current = path.dirname(path.resolve(dir)); ; current = path.dirname(current)) {
    const { mode: parentMode, uid, gid } = await stat(current);
    const searchable = (parentMode & 0o001) !== 0 || (uid === user.uid && (parentMode & 0o100) !== 0) || (gid === user.gid && (parentMode & 0o010) !== 0);
    if (!searchable) return current;
    if (path.dirname(current) === current) return undefined;
  }
}
