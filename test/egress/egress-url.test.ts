import { describe, expect, it } from 'vitest';
import { resolveAllowed, type EgressPolicy } from '../../src/egress/egress-policy.js';
import { parseTargetUrl } from '../../src/egress/target-url.js';
import { CaptureError } from '../../src/core/errors/catalogue.js';

function failure(fn: () => unknown): CaptureError {
  try {
    fn();
  } catch (error) {
    if (error instanceof CaptureError) return error;
    throw error;
  }
  throw new Error('expected a CaptureError');
}

/** IP literals must be judged without DNS; a name reaching this resolver is a test bug. */
const literalOnly: EgressPolicy = {
  allowPrivateNetworks: false,
  resolver: (hostname) => Promise.reject(new Error(`resolver called for ${hostname}`)),
};

/** The full front-door path: parse like the browser, then classify the address. */
async function verdict(raw: string): Promise<string> {
  try {
    await resolveAllowed(parseTargetUrl(raw), literalOnly);
    return 'allowed';
  } catch (error) {
    return error instanceof CaptureError ? error.code : String(error);
  }
}

describe('parseTargetUrl + resolveAllowed: hostile targets', () => {
  it.each([
    // Spellings of 127.0.0.1 that WHATWG normalises before we see them.
    'http://127.0.0.1/',
    'HTTP://127.0.0.1',
    'http://2130706433/',
    'http://0x7f.1/',
    'http://0x7f000001/',
    'http://017700000001/',
    'http://0177.0.0.1/',
    'http://127.1/',
    'http://127.0.1/',
    'http://%31%32%37.0.0.1/',
    'http://１２７.０.０.１/',
    'http://127.0.0.1.:8080/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:7f00:1]/',
    'http://[::127.0.0.1]/',
    'http://[0:0:0:0:0:ffff:127.0.0.1]/',
    // Other IPv6 forms.
    'http://[::1]/',
    'http://[::]/',
    'http://[fe80::1]/',
    'http://[fc00::1]/',
    'http://[64:ff9b::7f00:1]/',
    'http://[2002:7f00:1::]/',
    'http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/',
    // Metadata, CGNAT, unspecified, multicast, broadcast.
    'http://169.254.169.254/latest/meta-data/',
    'http://0xa9fea9fe/',
    'http://[::ffff:169.254.169.254]/',
    'http://100.64.0.1/',
    'http://0.0.0.0/',
    'http://0/',
    'http://224.0.0.1/',
    'http://255.255.255.255/',
    'http://10.0.0.1/',
    'https://192.168.0.1:8443/',
    // Names that are loopback by definition.
    'http://localhost/',
    'http://LOCALHOST./',
    'http://app.localhost/',
    'http://a.b.localhost:3000/',
    'http://localhost../',
    // Schemes.
    'FILE:///etc/passwd',
    'file://localhost/etc/passwd',
    'ftp://example.com/',
    'data:text/html,<h1>x</h1>',
    'javascript:alert(1)',
    'chrome://settings',
    'view-source:http://example.com/',
    'ws://example.com/',
    'wss://example.com/',
    'blob:http://example.com/uuid',
    'about:blank',
    // Credentials.
    'http://user:pass@example.com/',
    'http://user@example.com/',
    'https://:secret@example.com/',
  ])('refuses %s', async (raw) => {
    expect(await verdict(raw)).toBe('URL_NOT_ALLOWED');
  });

  it.each([
    ' http://93.184.216.34/',
    'http://93.184.216.34/ ',
    'http://93.184.216.34/\n',
    'ht\ttp://93.184.216.34/',
    'http://93.184.216.34/a\rb',
    'http://93.184.216.34\u0000.evil.test/',
    'http://127.0.0.1\u0000.example.com/',
    'http://93.184.216.34/\u00a0',
    'http://93.184.216.34/\u2028',
    'http://93.184.216.34/\u200b',
    'http://93.184.216.34/\u007f',
    'http://93.184.216.34/\u0085',
    '\ufeffhttp://93.184.216.34/',
    'not a url',
    'example.com',
    '//example.com/',
    'http://',
    'http://[::1/',
    'http://exa mple.com/',
    '',
  ])('rejects %j as an invalid parameter', async (raw) => {
    expect(await verdict(raw)).toBe('INVALID_PARAMETER');
  });

  it.each(['http://93.184.216.34/', 'https://93.184.216.34:8443/a?b=c#d', 'http://[2606:4700::1]/', 'https://8.8.8.8'])(
    'allows the public literal %s',
    async (raw) => {
      expect(await verdict(raw)).toBe('allowed');
    },
  );
});

describe('parseTargetUrl', () => {
  it('normalises IP spellings the way the browser will', () => {
    expect(parseTargetUrl('http://2130706433/').hostname).toBe('127.0.0.1');
    expect(parseTargetUrl('http://0x7f.1/').hostname).toBe('127.0.0.1');
    expect(parseTargetUrl('http://017700000001/').hostname).toBe('127.0.0.1');
    expect(parseTargetUrl('http://127.1/').hostname).toBe('127.0.0.1');
    expect(parseTargetUrl('http://[::ffff:127.0.0.1]/').hostname).toBe('[::ffff:7f00:1]');
  });

  // Issue 50, item 7: a new user's first try is often a bare host name.
  it('echoes a URL without its scheme and suggests https', () => {
    expect(() => parseTargetUrl('example.com')).toThrow(expect.objectContaining({ code: 'INVALID_PARAMETER', message: 'url is not a valid URL: "example.com" (an http or https URL: did you mean "https://example.com"?)' }));
    expect(() => parseTargetUrl('http//x y')).toThrow(/whitespace/);
    expect(() => parseTargetUrl('%%%')).toThrow(expect.objectContaining({ message: 'url is not a valid URL: "%%%"' }));
  });

  it('returns the parsed URL for public names without resolving them', () => {
    const url = parseTargetUrl('HTTPS://Example.COM:443/Path?q=1');
    expect(url.href).toBe('https://example.com/Path?q=1');
  });

  it('gives the documented details for each kind of refusal', () => {
    const invalid = failure(() => parseTargetUrl('http://a b/'));
    expect(invalid.code).toBe('INVALID_PARAMETER');
    expect(invalid.status).toBe(400);
    expect(invalid.details).toEqual({ param: 'url', allowed: 'http or https URL' });

    const scheme = failure(() => parseTargetUrl('FILE:///etc/passwd'));
    expect(scheme.code).toBe('URL_NOT_ALLOWED');
    expect(scheme.status).toBe(403);
    expect(scheme.details).toEqual({ url: 'FILE:///etc/passwd' });

    expect(failure(() => parseTargetUrl('http://LOCALHOST./')).details).toEqual({
      url: 'http://LOCALHOST./',
      hint: expect.stringContaining('capture its address instead (http://127.0.0.1:80/)'),
    });
  });

  it('never echoes credentials back', () => {
    const error = failure(() => parseTargetUrl('https://admin:hunter2@example.com/x'));
    expect(error.code).toBe('URL_NOT_ALLOWED');
    expect(JSON.stringify(error.toJSON())).not.toContain('hunter2');
    expect(error.details).toEqual({ url: 'https://example.com/x' });
  });

  it('lets operators with allowPrivateNetworks name localhost', () => {
    expect(parseTargetUrl('http://localhost:3000/', { allowPrivateNetworks: true }).host).toBe('localhost:3000');
    expect(failure(() => parseTargetUrl('file:///x', { allowPrivateNetworks: true })).code).toBe('URL_NOT_ALLOWED');
  });
});
