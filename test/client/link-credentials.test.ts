import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { newKey, operatorLinkCredentials as serverSide } from '../../src/access/index.js';
import { createCaptureClient, operatorLinkCredentials } from '../../src/client/index.js';
import { renderLink } from '../../src/index.js';

const LINK_ID_SECRET = randomBytes(32).toString('base64url');

describe("the client's link credentials of an operator's key", () => {
  it.each([randomBytes(32).toString('hex'), 'ce_playground_0123456789abcdefghij', 'ключ with spaces and ü, long enough'])('are what the service derives for %j', async (key) => {
    const { key: linkKey, signingSecret } = serverSide(key);
    // Issue 50, item 15: the library and the client answer under the same names.
    await expect(operatorLinkCredentials(key)).resolves.toEqual({ key: linkKey, linkKey, signingSecret });
  });

  it('derive the id with the link id secret as the service does, or take it as given', async () => {
    const key = randomBytes(32).toString('hex');
    const keyed = serverSide(key, { linkIdSecret: LINK_ID_SECRET });
    expect(keyed.key).not.toBe(serverSide(key).key);
    await expect(operatorLinkCredentials(key, { linkIdSecret: LINK_ID_SECRET })).resolves.toEqual({ key: keyed.key, linkKey: keyed.key, signingSecret: keyed.signingSecret });
    await expect(operatorLinkCredentials(key, { linkKey: 'key_given' })).resolves.toEqual({ key: 'key_given', linkKey: 'key_given', signingSecret: keyed.signingSecret });
  });
});

describe('a render link given a whole managed key', () => {
  const { key, id } = newKey();
  const secret = key.slice(id.length + 1);
  const params = { url: 'https://example.com' };

  it('is refused by the client, naming the prefix to use', async () => {
    const client = createCaptureClient({ baseUrl: 'https://shots.example.com' });
    const refusal = (await client.renderLink(params, { linkKey: key, signingSecret: 'its-signing-secret' }).catch((error: unknown) => error)) as Error;
    expect(refusal).toBeInstanceOf(TypeError);
    expect(refusal.message).toContain(`key: '${id}'`);
    expect(refusal.message).not.toContain(secret);
    await expect(client.renderLink(params, { linkKey: id, signingSecret: 'its-signing-secret' })).resolves.toContain(`key=${id}&`);
  });

  it('is refused by the library, naming the prefix to use', () => {
    expect(() => renderLink({ baseUrl: 'https://shots.example.com', key, signingSecret: 'its-signing-secret', params })).toThrow(`key: '${id}'`);
    expect(renderLink({ baseUrl: 'https://shots.example.com', key: id, signingSecret: 'its-signing-secret', params })).toContain(`key=${id}&`);
  });
});
