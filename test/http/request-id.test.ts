import { describe, expect, it } from 'vitest';
import { MAX_REQUEST_ID_LENGTH, requestIdOf } from '../../src/http/request-id.js';
import type { HttpRequest } from '../../src/http/http-types.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const request = (id?: string | string[]): HttpRequest => ({ method: 'GET', url: '/api/v1/capture', headers: id === undefined ? {} : { 'x-request-id': id } });

describe('request ids (Gotenberg-Trace, X-Request-Id)', () => {
  it.each(['abc-123', 'svc:01HZX3/4+5=', 'a'.repeat(MAX_REQUEST_ID_LENGTH), '4bf92f3577b34da6a3ce929d0e0e4736'])('takes the caller\'s %s as it is', (id) => {
    expect(requestIdOf(request(id))).toBe(id);
  });

  it.each([
    ['one character too long', 'a'.repeat(MAX_REQUEST_ID_LENGTH + 1)],
    ['a megabyte', 'a'.repeat(2 ** 20)],
    ['a forged log line', 'abc\r\nX-Admin: 1'],
    ['a space', 'a b'],
    ['a quote', 'a"b'],
    ['non-ASCII', 'idé'],
    ['empty', ''],
  ])('makes its own UUID instead of %s', (_what, id) => {
    expect(requestIdOf(request(id))).toMatch(UUID);
  });

  it('makes a UUID when none or several are sent, and answers the same one for the same request', () => {
    expect(requestIdOf(request())).toMatch(UUID);
    expect(requestIdOf(request(['a', 'b']))).toMatch(UUID);
    const once = request();
    expect(requestIdOf(once)).toBe(requestIdOf(once));
    expect(requestIdOf(request())).not.toBe(requestIdOf(once));
  });
});
