import { describe, expect, it } from 'vitest';
import { operatorLinkCredentials as serverSide } from '../../src/access/index.js';
import { operatorLinkCredentials } from '../../src/client/index.js';

describe("the client's link credentials of an operator's key", () => {
  it.each(['my-secret-key', 'ce_playground_0123456789abcdefghij', 'ключ with spaces and ü'])('are what the service derives for %j', async (key) => {
    const { key: linkKey, signingSecret } = serverSide(key);
    await expect(operatorLinkCredentials(key)).resolves.toEqual({ linkKey, signingSecret });
  });
});
