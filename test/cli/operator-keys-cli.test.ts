import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { estimatedBits, MIN_SECRET_BITS, newKey, operatorLinkCredentials } from '../../src/access/index.js';
import { link } from '../../src/cli/link.js';
import { keys } from '../../src/cli/keys.js';
import { serviceSetup } from '../../src/cli/service-setup.js';

/** What a command wrote to stdout while it ran. */
async function stdoutOf(run: () => unknown): Promise<string> {
  let written = '';
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    written += String(chunk);
    return true;
  });
  try {
    await run();
  } finally {
    write.mockRestore();
  }
  return written;
}

const STRONG = randomBytes(32).toString('hex');
const LINK_ID_SECRET = randomBytes(32).toString('base64url');

afterEach(() => vi.restoreAllMocks());

describe('capture-engine link', () => {
  it('refuses a whole managed key for --key or CAPTURE_LINK_KEY, naming its prefix and not its secret', () => {
    const { key, id } = newKey();
    for (const [args, env] of [
      [['https://example.com', '--key', key, '--signing-secret', 's'], {}],
      [['https://example.com'], { CAPTURE_LINK_KEY: key, CAPTURE_SIGNING_SECRET: 's' }],
    ] as const) {
      let message = '';
      try {
        link([...args], { ...env });
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toContain(`--key ${id}`);
      expect(message).not.toContain(key.slice(id.length + 1));
    }
  });

  it('names an operator key by the id the service derives with CAPTURE_LINK_ID_SECRET, or by the id given', async () => {
    const keyOf = (printed: string): string | null => new URL(printed.trim()).searchParams.get('key');
    expect(keyOf(await stdoutOf(() => link(['https://example.com', '--api-key', STRONG], {})))).toBe(operatorLinkCredentials(STRONG).key);
    expect(keyOf(await stdoutOf(() => link(['https://example.com', '--api-key', STRONG], { CAPTURE_LINK_ID_SECRET: LINK_ID_SECRET })))).toBe(operatorLinkCredentials(STRONG, { linkIdSecret: LINK_ID_SECRET }).key);
    expect(keyOf(await stdoutOf(() => link(['https://example.com', '--api-key', STRONG, '--key', 'key_given'], {})))).toBe('key_given');
  });
});

describe('capture-engine keys generate', () => {
  it('prints a key that passes the strength check, without a key store', async () => {
    const printed = (await stdoutOf(() => keys(['generate'], {}))).trim();
    expect(printed).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(estimatedBits(printed)).toBeGreaterThanOrEqual(MIN_SECRET_BITS);
  });
});

describe('serve with CAPTURE_API_KEYS', () => {
  const setupWith = (env: NodeJS.ProcessEnv) => serviceSetup({}, undefined, { env: { CAPTURE_LOG_LEVEL: 'error', ...env } });

  it('does not start with a weak key: the error names its position and how to make one, never the key', async () => {
    const refusal = (await setupWith({ CAPTURE_API_KEYS: `${STRONG}:PRO,my-secret-key:FREE` }).catch((error: unknown) => error)) as Error;
    expect(refusal.message).toMatch(/^Key 2 of 2 in CAPTURE_API_KEYS is too weak/);
    expect(refusal.message).toContain('openssl rand -hex 32');
    expect(refusal.message).toContain('CAPTURE_ALLOW_WEAK_KEYS=true');
    expect(refusal.message).not.toContain('my-secret-key');
    await expect(setupWith({ CAPTURE_API_KEYS: `${STRONG}:PRO`, CAPTURE_LINK_ID_SECRET: 'short' })).rejects.toThrow(/link id secret .* is too weak/);
  });

  it('starts with a weak key when CAPTURE_ALLOW_WEAK_KEYS=true', async () => {
    const setup = await setupWith({ CAPTURE_API_KEYS: 'my-secret-key:PRO', CAPTURE_ALLOW_WEAK_KEYS: 'true' });
    try {
      expect((await setup.httpOptions.keyStore?.lookup('my-secret-key'))?.tier).toBe('PRO');
    } finally {
      await setup.close();
    }
  });

  it('prints the link ids of its keys when they are keyed with CAPTURE_LINK_ID_SECRET', async () => {
    let setup: Awaited<ReturnType<typeof setupWith>> | undefined;
    const printed = await stdoutOf(async () => {
      setup = await setupWith({ CAPTURE_API_KEYS: `${STRONG}:PRO`, CAPTURE_LINK_ID_SECRET: LINK_ID_SECRET });
    });
    try {
      const id = operatorLinkCredentials(STRONG, { linkIdSecret: LINK_ID_SECRET }).key;
      expect(printed).toContain(`CAPTURE_API_KEYS entry 1 (PRO) name it key=${id}`);
      expect(printed).not.toContain(STRONG);
      expect((await setup?.httpOptions.keyStore?.lookupId(id))?.tier).toBe('PRO');
    } finally {
      await setup?.close();
    }
  });
});
