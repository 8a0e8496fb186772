import { describe, expect, it } from 'vitest';
import { parseRange } from '../../src/http/serve-file.js';
import { readBodyParams, fromSearchParams } from '../../src/http/request-body.js';
import { isStorageKey } from '../../src/core/storage.js';
import { splitSelectors } from '../../plugins/hide-selectors/index.js';

describe('byte ranges', () => {
  it.each([
    ['bytes=0-9', { start: 0, end: 9 }],
    ['bytes=90-', { start: 90, end: 99 }],
    ['bytes=-10', { start: 90, end: 99 }],
    ['bytes=50-500', { start: 50, end: 99 }],
    ['bytes=100-', 'unsatisfiable'],
    ['bytes=9-3', 'unsatisfiable'],
    ['bytes=0-1,5-6', undefined],
    ['items=0-1', undefined],
  ])('%s of 100 bytes → %o', (header, expected) => {
    expect(parseRange(header, 100)).toEqual(expected);
  });
});

describe('request bodies', () => {
  const post = (contentType: string | undefined, text: string) =>
    readBodyParams({ method: 'POST', url: '/', headers: contentType ? { 'content-type': contentType } : {}, body: Buffer.from(text) }, 65536);

  it('reads JSON and form bodies', () => {
    expect(post('application/json; charset=utf-8', '{"url":"https://a.example","full_page":true}')).toMatchObject({ url: 'https://a.example', full_page: true });
    expect(post('application/x-www-form-urlencoded', 'url=https%3A%2F%2Fa.example&format=jpg')).toMatchObject({ url: 'https://a.example', format: 'jpg' });
  });

  // Issue 50, item 6: `curl -d '{...}'` sends JSON as a form.
  it('reads a JSON object sent as a form or with no Content-Type as JSON', () => {
    expect(post('application/x-www-form-urlencoded', ' {"url":"https://a.example","full_page":true}\n')).toMatchObject({ url: 'https://a.example', full_page: true });
    expect(post(undefined, '{"url":"https://a.example"}')).toMatchObject({ url: 'https://a.example' });
    expect(() => post('application/x-www-form-urlencoded', '{"url":}')).toThrow(expect.objectContaining({ code: 'INVALID_PARAMETER', details: expect.objectContaining({ param: 'body' }) }));
  });

  it('answers 415 for other types, 400 for broken JSON or non-objects, 413 when too large', () => {
    expect(() => post('text/plain', 'url=x')).toThrow(expect.objectContaining({ code: 'UNSUPPORTED_MEDIA_TYPE' }));
    expect(() => post(undefined, '')).toThrow(expect.objectContaining({ code: 'UNSUPPORTED_MEDIA_TYPE' }));
    expect(() => post('application/json', '{"url":')).toThrow(expect.objectContaining({ code: 'INVALID_PARAMETER' }));
    expect(() => post('application/json', '[1,2]')).toThrow(expect.objectContaining({ code: 'INVALID_PARAMETER' }));
    expect(() => readBodyParams({ method: 'POST', url: '/', headers: {}, bodyTooLarge: true }, 10)).toThrow(expect.objectContaining({ code: 'PAYLOAD_TOO_LARGE' }));
  });

  it('keeps repeated query names as arrays on a prototype-free bag', () => {
    const bag = fromSearchParams(new URLSearchParams('a=1&a=2&__proto__=x'));
    expect(bag.a).toEqual(['1', '2']);
    expect(Object.getPrototypeOf(bag)).toBeNull();
    expect(bag.__proto__).toBe('x');
  });
});

describe('storage keys and selectors', () => {
  it.each(['2026-11-22/abc_DEF-1.png', 'a/b.webm'])('accepts %s', (key) => expect(isStorageKey(key)).toBe(true));
  it.each(['../etc/passwd', '2026/../../x.png', '%2e%2e/x.png', 'a/b/c.png', '/abs/x.png', 'a\\..\\b.png', 'a/.b.png', 'a/b.png\0'])('refuses %s', (key) =>
    expect(isStorageKey(key)).toBe(false));

  it('splits selectors on top-level commas only', () => {
    expect(splitSelectors('.a, #b ,div:is(.x, .y),[data-a="1,2"]')).toEqual(['.a', '#b', 'div:is(.x, .y)', '[data-a="1,2"]']);
  });
});
