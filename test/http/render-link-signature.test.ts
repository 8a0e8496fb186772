import { describe, expect, it } from 'vitest';
import { canonicalQuery, operatorLinkCredentials, renderLink } from '../../src/index.js';
import { signatureMatches } from '../../src/access/link-signature.js';
import { identifyByLink } from '../../src/http/signed-link.js';
import { createMemoryKeyStore } from '../../src/access/index.js';

const SECRET = 'a-signing-secret';
const pairsOf = (link: string): URLSearchParams => new URL(link).searchParams;

describe('render link signatures', () => {
  it('spells the canonical form as the README does: sorted names, RFC 3986 encoding, signature left out', () => {
    const pairs: [string, string][] = [
      ['url', 'https://example.com/a b?x=1&y=(2)'],
      ['format', 'webp'],
      ['hide_selectors', ".ad,#x!'*"],
      ['signature', 'ignored'],
      ['key', 'ce_abc'],
    ];
    expect(canonicalQuery(pairs)).toBe('format=webp&hide_selectors=.ad%2C%23x%21%27%2A&key=ce_abc&url=https%3A%2F%2Fexample.com%2Fa%20b%3Fx%3D1%26y%3D%282%29');
  });

  it('keeps a link valid when its parameters are reordered or spaces are written as +, and breaks it when any value changes', () => {
    const link = renderLink({ baseUrl: 'https://shots.example.com/', key: 'ce_abc', signingSecret: SECRET, params: { url: 'https://example.com/?q=a b', viewport_width: 800, full_page: true } });
    expect(link.startsWith('https://shots.example.com/api/v1/render?')).toBe(true);
    const search = pairsOf(link);
    const signature = search.get('signature') as string;
    expect(signature).toMatch(/^[0-9a-f]{64}$/);
    expect(signatureMatches(search, SECRET, signature)).toBe(true);
    const reordered = new URLSearchParams([...search].reverse());
    expect(signatureMatches(reordered, SECRET, signature)).toBe(true);
    expect(signatureMatches(new URLSearchParams(search.toString().replaceAll('%20', '+')), SECRET, signature)).toBe(true);
    for (const [name, value] of [['viewport_width', '801'], ['full_page', 'false'], ['key', 'ce_abd']]) {
      const changed = new URLSearchParams(search);
      changed.set(name as string, value as string);
      expect(signatureMatches(changed, SECRET, signature), name).toBe(false);
    }
    const added = new URLSearchParams(search);
    added.append('delay', '0');
    expect(signatureMatches(added, SECRET, signature)).toBe(false);
    expect(signatureMatches(search, 'another-secret', signature)).toBe(false);
    expect(signatureMatches(search, SECRET, signature.toUpperCase())).toBe(true);
    expect(signatureMatches(search, SECRET, signature.slice(1))).toBe(false);
  });

  it('identifies the account behind a link, and names what is wrong with a bad one', async () => {
    const apiKey = 'operator-key-0123456789';
    const store = createMemoryKeyStore([{ key: apiKey, tier: 'PRO' }]);
    const credentials = operatorLinkCredentials(apiKey);
    const request = { method: 'GET', url: '/', headers: {}, remoteAddress: '127.0.0.1' };
    const now = Date.UTC(2026, 10, 24);
    const link = (extra: Partial<Parameters<typeof renderLink>[0]> = {}): URLSearchParams =>
      pairsOf(renderLink({ baseUrl: 'http://x', ...credentials, params: { url: 'https://example.com' }, ...extra }));
    const codeOf = async (search: URLSearchParams): Promise<string> => {
      const caller = await identifyByLink(store, request, search, now);
      return caller.kind === 'account' ? `account ${caller.record.tier}` : caller.refusal.code;
    };
    expect(await codeOf(link())).toBe('account PRO');
    expect(await codeOf(link({ expires: new Date(now + 1000) }))).toBe('account PRO');
    expect(await codeOf(link({ expires: new Date(now - 1000) }))).toBe('LINK_EXPIRED');
    expect(await codeOf(link({ signingSecret: 'wrong' }))).toBe('INVALID_SIGNATURE');
    expect(await codeOf(link({ key: 'ce_unknown' }))).toBe('INVALID_API_KEY');
    const unsigned = link();
    unsigned.delete('signature');
    expect(await codeOf(unsigned)).toBe('INVALID_SIGNATURE');
    const keyless = link();
    keyless.delete('key');
    expect(await codeOf(keyless)).toBe('MISSING_API_KEY');
    expect(await codeOf(pairsOf(renderLink({ baseUrl: 'http://x', ...credentials, params: { url: 'https://example.com', api_key: apiKey } })))).toBe('INVALID_PARAMETER');
  });

  it('refuses to build a link whose params set what the builder sets', () => {
    expect(() => renderLink({ baseUrl: 'http://x', key: 'k', signingSecret: SECRET, params: { url: 'https://example.com', signature: 'x' } })).toThrow(TypeError);
  });
});
