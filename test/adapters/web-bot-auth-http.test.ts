import { createPublicKey, generateKeyPairSync, verify as verifyEd25519 } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jwkToKeyID, verify, type VerificationParams } from 'web-bot-auth';
import { helpers, verifierFromJWK } from 'web-bot-auth/crypto';
import { html, startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { isBuilt, killLeftoverBuiltProcesses, type BuiltService } from '../helpers/built-service.js';
import { closedPort } from '../helpers/ports.js';
import type { Account } from '../helpers/key-cli.js';
import { startKeyedService, type KeyedService } from '../helpers/keyed-service.js';
import { decode, near } from '../helpers/pixels.js';

// A test that fails before stopping its service leaves it running: kill what is left.
afterAll(killLeftoverBuiltProcesses);

const DIRECTORY = '/.well-known/http-message-signatures-directory';

/**
 * A site that admits only verified bots, as Cloudflare's verifier does: each request's signature is
 * checked with the web-bot-auth package against the key its Signature-Agent's directory serves.
 */
interface Verdict {
  path: string;
  ok: boolean;
}
const verdicts: Verdict[] = [];
let directoryFetches = 0;
const signedHeaders: Record<string, string>[] = [];

async function verified(req: IncomingMessage): Promise<boolean> {
  const headers = Object.fromEntries(Object.entries(req.headers).map(([name, value]) => [name, String(value)]));
  const message = { method: req.method ?? 'GET', url: `http://${req.headers.host ?? ''}${req.url ?? '/'}`, headers };
  const check = async (data: string, signature: Uint8Array, params: VerificationParams): Promise<void> => {
    const agent = JSON.parse(headers['signature-agent'] ?? '""') as string;
    directoryFetches += 1;
    const directory = (await (await fetch(new URL(DIRECTORY, agent))).json()) as { keys: JsonWebKey[] };
    for (const key of directory.keys) {
      if ((await jwkToKeyID(key, helpers.WEBCRYPTO_SHA256, helpers.BASE64URL_DECODE)) === params.keyid) return (await verifierFromJWK(key))(data, signature, params);
    }
    throw new Error('unknown key');
  };
  return verify(message, check).then(
    () => true,
    () => false,
  );
}

const guarded =
  (body: string) =>
  (req: IncomingMessage, res: Parameters<typeof html>[0]): void =>
    void verified(req).then((ok) => {
      verdicts.push({ path: (req.url ?? '').split('?')[0] ?? '', ok });
      if (ok && req.url?.startsWith('/signed/page')) signedHeaders.push(Object.fromEntries(Object.entries(req.headers).map(([name, value]) => [name, String(value)])));
      if (!ok) return html(res, '<body style="height:100vh;background:#ff0000">unsigned</body>', 401);
      if (req.url?.startsWith('/signed/square')) return void res.writeHead(200, { 'Content-Type': 'image/svg+xml', 'Cache-Control': 'no-store' }).end(body);
      html(res, body);
    });

let fixtures: FixtureServer;
let keyed: KeyedService;
let service: BuiltService;
let account: Account;
let privateKey: JsonWebKey;

beforeAll(async () => {
  if (!isBuilt()) return;
  fixtures = await startFixtureServer({
    '/signed/page': guarded('<body style="margin:0;height:100vh;background:#00ff00"><img src="/signed/square" width="100" height="100" style="display:block"></body>'),
    '/signed/square': guarded('<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"><rect width="100" height="100" fill="#0000ff"/></svg>'),
  });
  privateKey = generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' }) as JsonWebKey;
  const port = await closedPort();
  keyed = await startKeyedService('web-bot-auth-http', {
    port,
    env: (dir) => {
      writeFileSync(path.join(dir, 'bot-key.json'), JSON.stringify(privateKey));
      return {
        CAPTURE_LOG_LEVEL: 'info',
        CAPTURE_WEB_BOT_AUTH_KEY: path.join(dir, 'bot-key.json'),
        CAPTURE_WEB_BOT_AUTH_AGENT: `http://127.0.0.1:${port}`,
        CAPTURE_OPERATOR_URL: 'https://ops.example/captures',
      };
    },
  });
  service = keyed.service;
  account = keyed.accounts[0]!;
});
afterAll(async () => {
  await keyed?.close();
  await fixtures?.close();
});

describe.skipIf(!isBuilt())('Web Bot Auth over HTTP (npm start)', () => {
  it('the service serves its key directory, signed, with the public key only', async () => {
    const answer = await fetch(`${service.origin}${DIRECTORY}`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/http-message-signatures-directory+json');
    expect(answer.headers.get('signature-input')).toContain('tag="http-message-signatures-directory"');
    expect(answer.headers.get('signature')).toMatch(/^binding0=:/);
    const body = (await answer.json()) as { keys: JsonWebKey[] };
    expect(body.keys).toEqual([{ kty: 'OKP', crv: 'Ed25519', x: privateKey.x }]);
  });

  it("the directory's signature verifies with node:crypto's Ed25519 against the key it publishes, over the signature base RFC 9421 builds", async () => {
    const answer = await fetch(`${service.origin}${DIRECTORY}`);
    const [published] = ((await answer.json()) as { keys: (JsonWebKey & Record<string, unknown>)[] }).keys;
    const input = answer.headers.get('signature-input') ?? '';
    const signature = /^binding0=:([A-Za-z0-9+/]+=*):$/.exec(answer.headers.get('signature') ?? '')?.[1];
    expect(input.startsWith('binding0=("@authority";req);')).toBe(true);
    const params = input.slice('binding0='.length);
    const created = Number(/;created=(\d+)/.exec(params)?.[1]) * 1000;
    const expires = Number(/;expires=(\d+)/.exec(params)?.[1]) * 1000;
    expect(created <= Date.now() && Date.now() < expires).toBe(true);
    // The key id is the published key's JWK thumbprint (RFC 7638), as the directory draft asks.
    expect(/;keyid="([^"]+)"/.exec(params)?.[1]).toBe(await jwkToKeyID(published ?? {}, helpers.WEBCRYPTO_SHA256, helpers.BASE64URL_DECODE));
    // RFC 9421 §2.5: one line per covered component, then @signature-params; the authority is the request's.
    const base = (authority: string): Buffer => Buffer.from(`"@authority";req: ${authority}\n"@signature-params": ${params}`);
    const key = createPublicKey({ key: published ?? {}, format: 'jwk' });
    const bytes = Buffer.from(signature ?? '', 'base64');
    expect(verifyEd25519(null, base(new URL(service.origin).host), key, bytes)).toBe(true);
    expect(verifyEd25519(null, base('attacker.example'), key, bytes)).toBe(false);
  });

  it('a signed capture is admitted, its subresource signed too; the key never appears in the logs', async () => {
    verdicts.length = 0;
    const fetchesBefore = directoryFetches;
    const answer = await fetch(`${service.origin}/api/v1/capture?${new URLSearchParams({ url: fixtures.url('/signed/page'), viewport_width: '200', viewport_height: '200' })}`, { headers: { 'X-API-Key': account.key } });
    expect(answer.status).toBe(200);
    const image = await decode(Buffer.from(await answer.arrayBuffer()));
    expect(near(image.at(50, 50), '#0000ff')).toBe(true);
    expect(near(image.at(150, 150), '#00ff00')).toBe(true);
    expect(verdicts).toContainEqual({ path: '/signed/page', ok: true });
    expect(verdicts).toContainEqual({ path: '/signed/square', ok: true });
    expect(verdicts.every(({ ok }) => ok)).toBe(true);
    expect(directoryFetches - fetchesBefore).toBeGreaterThanOrEqual(2);
    expect(service.output()).not.toContain(privateKey.d);
    // The service says what it is, and where its operator is found (CAPTURE_OPERATOR_URL).
    expect(signedHeaders.at(-1)?.['user-agent']).toMatch(/ HeadlessChrome\/[\d.]+ .* capture-engine\/\d+\.\d+\.\d+ \(\+https:\/\/ops\.example\/captures\)$/);
  });

  it('an unsigned request is refused, and so is a tampered signature', async () => {
    const unsigned = await fetch(fixtures.url('/signed/page'));
    expect(unsigned.status).toBe(401);
    const signed = signedHeaders.at(-1);
    expect(signed).toBeDefined();
    const { signature = '', 'signature-input': input = '', 'signature-agent': agent = '' } = signed ?? {};
    // The same bytes but one, inside the base64 of the signature.
    const at = signature.indexOf(':') + 5;
    const tampered = signature.slice(0, at) + (signature[at] === 'A' ? 'B' : 'A') + signature.slice(at + 1);
    const refused = await fetch(fixtures.url('/signed/page'), { headers: { Signature: tampered, 'Signature-Input': input, 'Signature-Agent': agent } });
    expect(refused.status).toBe(401);
    const intact = await fetch(fixtures.url('/signed/page'), { headers: { Signature: signature, 'Signature-Input': input, 'Signature-Agent': agent } });
    expect(intact.status).toBe(200);
  });
});
