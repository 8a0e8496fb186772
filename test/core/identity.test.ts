import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkUserAgentOptions, engineUserAgent, PACKAGE_VERSION } from '../../src/core/identity.js';

const CHROMIUM = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156.0.0.0 Safari/537.36';

describe('the User-Agent the engine sends', () => {
  it("is Chromium's, then capture-engine/<package.json's version>, then the operator's URL", () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(PACKAGE_VERSION).toBe(version);
    expect(engineUserAgent(CHROMIUM, {})).toBe(`${CHROMIUM} capture-engine/${version}`);
    expect(engineUserAgent(CHROMIUM, { operatorUrl: 'https://ops.example/bot' })).toBe(`${CHROMIUM} capture-engine/${version} (+https://ops.example/bot)`);
    expect(engineUserAgent(CHROMIUM, { userAgent: 'ExampleBot/2.0', operatorUrl: 'https://ops.example/bot' })).toBe('ExampleBot/2.0');
  });

  it('refuses options that could not go in a header as they are, naming the option', () => {
    expect(() => checkUserAgentOptions({ userAgent: 'Bot\r\nX-Injected: 1' })).toThrow(/Option 'userAgent'/);
    expect(() => checkUserAgentOptions({ userAgent: 'x'.repeat(513) })).toThrow(/Option 'userAgent'/);
    expect(() => checkUserAgentOptions({ operatorUrl: 'ops.example/bot' })).toThrow(/Option 'operatorUrl'/);
    expect(() => checkUserAgentOptions({ operatorUrl: 'https://ops.example/a) (b' })).toThrow(/Option 'operatorUrl'/);
    expect(checkUserAgentOptions({ userAgent: 'ExampleBot/2.0', operatorUrl: 'https://ops.example/bot' })).toEqual({ userAgent: 'ExampleBot/2.0', operatorUrl: 'https://ops.example/bot' });
  });
});
