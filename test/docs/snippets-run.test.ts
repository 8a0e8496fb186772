import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killLeftoverBuiltProcesses, startBuiltService, type BuiltService } from '../helpers/built-service.js';
import { startHttpProxy, startSocksProxy, type CountingProxy } from '../helpers/counting-proxy.js';
import { ROOT, codeBlocks, docPages, type CodeBlock } from '../helpers/docs-pages.js';
import { readerDirectory, standIn, startStandInWeb, type StandInWeb } from '../helpers/docs-world.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';

const run = promisify(execFile);

/** Every shell and JavaScript block of the README and the docs that does not say it cannot run. */
const RUNNABLE = docPages()
  .flatMap(codeBlocks)
  .filter((block) => (block.lang === 'sh' || block.lang === 'js') && block.notRun === undefined);

/** Inside the repository, so that `npx capture-engine` and `import 'capture-engine'` find the package itself. */
const DIR = path.join(ROOT, 'test/.artifacts/docs-run');
const WORK = path.join(DIR, 'work');
const BIN = path.join(DIR, 'bin');
const STATUS = 'docs-test curl status';

/** Whether a single-quoted string is still open after `line`, up to a comment (`# ...`) outside quotes. */
function stillQuoted(line: string, quoted: boolean): boolean {
  let single = quoted;
  let double = false;
  for (const [index, char] of [...line].entries()) {
    if (char === "'" && !double) single = !single;
    else if (char === '"' && !single) double = !double;
    else if (char === '#' && !single && !double && (index === 0 || /\s/.test(line[index - 1]!))) break;
  }
  return single;
}

/**
 * The curl commands of a shell block in order, each with the status its comment names: the comment
 * ending its line or the comment line after it, when it starts with one (`# 502, reason ...`,
 * `# 202 {...}`); a success otherwise.
 */
function expectedStatuses(code: string): string[] {
  const commands: string[] = [];
  let current: string[] = [];
  let quoted = false;
  for (const line of code.split('\n')) {
    current.push(line);
    quoted = stillQuoted(line, quoted);
    if (quoted || line.endsWith('\\')) continue;
    commands.push(current.join('\n'));
    current = [];
  }
  return commands.flatMap((command, index) => {
    if (!/^\s*curl\s/.test(command)) return [];
    const own = /\s#\s+(.*)$/.exec((command.split('\n').at(-1) ?? '').replace(/'[^']*'|"[^"]*"/g, "''"))?.[1];
    const next = commands[index + 1]?.trim();
    const comment = own ?? (next?.startsWith('#') ? next.replace(/^#\s*/, '') : '');
    return [/^(\d{3})\b/.exec(comment)?.[1] ?? '2xx'];
  });
}

describe('the shell and JavaScript blocks of the README and the docs, run against a started service', () => {
  let web: StandInWeb;
  let redis: TestRedis;
  let socks: CountingProxy;
  let named: CountingProxy;
  let service: BuiltService;
  let env: NodeJS.ProcessEnv;
  const key = randomBytes(32).toString('hex');

  beforeAll(async () => {
    [web, redis, socks, named] = await Promise.all([startStandInWeb(), startRedis(), startSocksProxy('user', 'pass'), startHttpProxy('user', 'pass')]);
    const allowed = [web.origin, socks.url].map((url) => new URL(url).host).join(',');
    // As the README starts it (CAPTURE_API_KEYS="$CAPTURE_API_KEY:PRO" npm start), with what the
    // examples of the other pages expect of a service: Redis for async=true, the webhook secret,
    // the operator's proxy named "de", and the stand-ins allowed as the public pages they replace.
    service = await startBuiltService('node', {
      CAPTURE_API_KEYS: `${key}:PRO`,
      CAPTURE_ALLOW_ADDRESSES: allowed,
      CAPTURE_REDIS_URL: redis.url,
      CAPTURE_WEBHOOK_SECRET: randomBytes(32).toString('hex'),
      CAPTURE_PROXIES: JSON.stringify({ de: named.url }),
    });
    await readerDirectory(WORK, web.origin);
    await mkdir(BIN, { recursive: true });
    const { stdout: curl } = await run('bash', ['-c', 'command -v curl']);
    // Every curl of a block says its status on stderr, where the test reads it.
    await writeFile(path.join(BIN, 'curl'), `#!/bin/sh\nexec ${curl.trim()} -sS -w '%{stderr}${STATUS} %{http_code}\\n' "$@"\n`);
    await chmod(path.join(BIN, 'curl'), 0o755);
    // The reader's shell after the README's first capture.
    env = {
      ...process.env,
      PATH: `${BIN}:${process.env.PATH ?? ''}`,
      CAPTURE_API_KEY: key,
      API: `${service.origin}/api`,
      KEY: key,
      CAPTURE_SIGNING_SECRET: randomBytes(32).toString('base64url'),
      CAPTURE_ALLOW_ADDRESSES: new URL(web.origin).host,
      NPM_CONFIG_OFFLINE: 'true',
      NPM_CONFIG_UPDATE_NOTIFIER: 'false',
    };
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await Promise.all([web?.close(), redis?.stop(), socks?.close(), named?.close()]);
    await killLeftoverBuiltProcesses();
  });

  const world = (): { service: string; web: string; socksProxy: string } => ({ service: service.origin, web: web.origin, socksProxy: socks.url });

  it.each(RUNNABLE.map((block): [string, CodeBlock] => [`${block.where} (${block.lang})`, block]))('%s', async (_, block) => {
    const code = standIn(block.code, world());
    if (block.lang === 'js') {
      const file = path.join(WORK, `${block.where.replace(/[/.:]/g, '-')}.mjs`);
      await writeFile(file, code);
      await run(process.execPath, [file], { cwd: WORK, env, timeout: 60_000 });
      return;
    }
    const { stderr } = await run('bash', ['-euo', 'pipefail', '-c', code], { cwd: WORK, env, timeout: 240_000, maxBuffer: 64 * 1024 * 1024 }).catch((error: { stderr?: string; message: string }) => {
      throw new Error(`${block.where} failed: ${error.message}\n${error.stderr ?? ''}`);
    });
    const statuses = [...stderr.matchAll(new RegExp(`^${STATUS} (\\d{3})$`, 'gm'))].map((match) => match[1]);
    const expected = expectedStatuses(block.code);
    expect(statuses.length, stderr).toBe(expected.length);
    expected.forEach((status, index) => expect(statuses[index], `curl ${index + 1} of ${block.where}\n${stderr}`).toMatch(status === '2xx' ? /^2\d\d$/ : new RegExp(`^${status}$`)));
  }, 300_000);

  it('sent the examples\' captures to the stand-in page and through both proxies', () => {
    expect(web.seen.filter((request) => request.startsWith('GET /')).length).toBeGreaterThan(20);
    expect(socks.carried.length).toBeGreaterThan(0);
    expect(named.carried.length).toBeGreaterThan(0);
  });
});
