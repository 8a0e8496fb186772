import { describe, expect, it } from 'vitest';
import { parseCaptureParams } from '../../src/core/schema/capture-params.js';
import { refusal } from '../helpers/refusal.js';
import { MAX_INTERCEPT_BODY_BYTES, MAX_INTERCEPTS } from '../../src/core/schema/intercept-params.js';
import { matchesGlob } from '../../plugins/shared/url-glob.js';

const url = 'https://example.com/';

describe('intercept', () => {
  it('takes rules as an array or a JSON string', () => {
    const rules = [{ pattern: '*/api/*', status: 201, headers: { 'X-Mock': 'yes' }, content_type: 'application/json', body: '{}' }];
    expect(parseCaptureParams({ url, intercept: rules }).intercept).toEqual(rules);
    expect(parseCaptureParams({ url, intercept: JSON.stringify(rules) }).intercept).toEqual(rules);
  });

  it.each([
    ['more rules than allowed', Array.from({ length: MAX_INTERCEPTS + 1 }, () => ({ pattern: '*' })), 'intercept'],
    ['bodies over 1 MiB together', [{ pattern: '*a', body: 'x'.repeat(MAX_INTERCEPT_BODY_BYTES) }, { pattern: '*b', body: 'y' }], 'intercept'],
    ['a body that is not base64', [{ pattern: '*', body: 'not base64!', encoding: 'base64' }], 'intercept'],
    ['a status out of range', [{ pattern: '*', status: 700 }], 'intercept[0].status'],
    ['a header value that ends a line', [{ pattern: '*', headers: { 'X-A': 'a\r\nSet-Cookie: x=1' } }], 'intercept[0].headers.X-A'],
    ['a pattern over 512 characters', [{ pattern: '*'.repeat(513) }], 'intercept[0].pattern'],
    ['an unknown field', [{ pattern: '*', respond: 'x' }], 'intercept[0].respond'],
    ['JSON that does not parse', '[{"pattern"', 'intercept'],
  ])('refuses %s, naming it', (_what, intercept, param) => {
    expect(refusal({ intercept })).toMatchObject({ code: 'INVALID_PARAMETER', details: { param } });
  });
});

describe('URL patterns of intercept', () => {
  it.each([
    ['*/api/*', 'https://example.com/api/data', true],
    ['https://example.com/api/*', 'https://example.com/api/data?x=1', true],
    ['*.png', 'https://cdn.example.com/a.png', true],
    ['*.png', 'https://cdn.example.com/a.png?v=2', false],
    ['https://example.com/', 'https://example.com/', true],
    ['https://example.com/', 'https://example.com/x', false],
    ['*', '', true],
  ])('%s against %s: %s', (pattern, text, expected) => {
    expect(matchesGlob(pattern, text)).toBe(expected);
  });

  it('answers a pattern of many stars against a long URL that almost matches (a regular expression would backtrack for ages)', () => {
    expect(matchesGlob(`${'*a'.repeat(200)}*b`, `https://example.com/${'a'.repeat(8000)}`)).toBe(false);
  });
});
