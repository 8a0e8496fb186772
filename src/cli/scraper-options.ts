import { readFile } from 'node:fs/promises';
import { InputError, UsageError } from './exit-codes.js';
import { readStdin } from './stdin.js';

/**
 * shot-scraper's flags that are not capture parameters (release 1.11, shot_scraper/cli.py):
 * `--browser`, `--auth-username`/`--auth-password`, `--skip`, and `gh:` scripts.
 */

/** shot-scraper's `--browser` choices (BROWSERS); the engine drives Chromium alone, as Chrome's engine. */
const BROWSERS = ['chromium', 'firefox', 'webkit', 'chrome', 'chrome-beta'];
const OURS = new Set(['chromium', 'chrome']);

export function checkBrowser(value: unknown, usage: string): void {
  if (value === undefined) return;
  const name = String(value).toLowerCase();
  if (!BROWSERS.includes(name)) throw new UsageError(`--browser ${String(value)}: one of ${BROWSERS.join(', ')}`, usage);
  if (!OURS.has(name)) throw new UsageError(`--browser ${name} is not available: capture-engine drives Chromium only (--browser chromium or chrome)`, usage);
}

/**
 * `--auth-username` and `--auth-password`: HTTP Basic credentials, sent as an Authorization header
 * to the target's origin only (the engine's default scope for a header), with any `--headers`.
 */
export function basicAuthHeaders(own: Record<string, unknown>, headers: unknown, usage: string): Record<string, unknown> {
  const [username, password] = [own['auth-username'], own['auth-password']];
  if (username === undefined && password === undefined) return {};
  if (typeof username !== 'string' || typeof password !== 'string') throw new UsageError('--auth-username and --auth-password go together', usage);
  const given = typeof headers === 'string' ? (JSON.parse(headers) as Record<string, string>) : ((headers ?? {}) as Record<string, string>);
  if (Object.keys(given).some((name) => name.toLowerCase() === 'authorization')) throw new UsageError('--auth-username with an Authorization header in --headers: give one of them', usage);
  return { headers: { ...given, Authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}` } };
}

/** shot-scraper's `--interactive` and `--devtools` (a window to act in before the shot): the engine's browser has none. */
export function checkInteractive(own: Record<string, unknown>, usage: string): void {
  const flag = own.interactive === true ? '--interactive' : own.devtools === true ? '--devtools' : undefined;
  if (flag !== undefined) throw new UsageError(`${flag} is not available: the engine captures in a browser without a window; act on the page with -j SCRIPT, or sign in first with capture-engine auth`, usage);
}

/** shot-scraper's `--skip` and `--fail` together. */
export function checkSkip(own: Record<string, unknown>, params: Record<string, unknown>, usage: string): Record<string, unknown> {
  if (own.skip !== true) return {};
  if (params.fail_on_http_error !== undefined) throw new UsageError('--skip and --fail cannot be used together', usage);
  // The engine fails the capture on an error status; the command then says it skips, and exits 0.
  return { fail_on_http_error: true };
}

/** GitHub's raw files, where shot-scraper reads `gh:` scripts from. */
export const GITHUB_RAW = 'https://raw.githubusercontent.com';
const GITHUB_TIMEOUT_MS = 15_000;
const MAX_SCRIPT_BYTES = 1024 * 1024;

/**
 * shot-scraper's load_github_script (shot_scraper/utils.py): `gh:user/script` is
 * user/shot-scraper-scripts/main/script.js, `gh:user/repo/path/file.js` that file on main.
 */
export function githubScriptUrl(githubPath: string, base = GITHUB_RAW): string {
  const parts = (githubPath.endsWith('.js') ? githubPath : `${githubPath}.js`).split('/');
  if (parts.length === 2) parts.splice(1, 0, 'shot-scraper-scripts');
  if (parts.length < 3 || parts.some((part) => part === '' || part === '..')) throw new InputError("GitHub path format should be 'username/repo/path/to/file.js' or 'username/file.js'");
  const [user, repo, ...file] = parts as [string, string, ...string[]];
  return `${base}/${user}/${repo}/main/${file.join('/')}`;
}

/** A `gh:` script fetched, bounded in time and size; what fails says where it was fetched from. */
export async function loadGithubScript(githubPath: string, base = GITHUB_RAW): Promise<string> {
  const url = githubScriptUrl(githubPath, base);
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(GITHUB_TIMEOUT_MS), redirect: 'follow' });
  } catch (error) {
    const reason = error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error);
    throw new InputError(`Error fetching from GitHub: ${reason} (URL: ${url}; without network access, download the script and give its file)`, { cause: error });
  }
  if (response.status !== 200) throw new InputError(`Failed to load content from GitHub: HTTP ${response.status}\nURL: ${url}`);
  const body = Buffer.from(await response.arrayBuffer());
  if (body.length > MAX_SCRIPT_BYTES) throw new InputError(`${url}: more than ${MAX_SCRIPT_BYTES} bytes, not a script`);
  return body.toString('utf8');
}

/** shot-scraper's _load_javascript_source: a file, `-` for standard input, or `gh:user/script`. */
export async function loadScriptSource(source: string, what: string): Promise<string> {
  if (source.startsWith('gh:')) return loadGithubScript(source.slice(3));
  if (source === '-') return readStdin();
  try {
    return await readFile(source, 'utf8');
  } catch (error) {
    throw new InputError(`${what}: Failed to read file '${source}': ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}
