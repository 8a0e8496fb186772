import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CaptureEngine, CaptureInput } from '../../src/index.js';
import { createTestEngine } from '../helpers/engine.js';
import { html, startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { decode, near } from '../helpers/pixels.js';

/**
 * Gotenberg 8's Chromium scenarios (test/integration/features/chromium_*.feature at gotenberg/gotenberg),
 * translated to our parameters: what someone moving from Gotenberg's routes expects (issue 51).
 * Each test is named after its scenario.
 */
const RED = '#ff0000';
const GREEN = '#00ff00';

let fixtures: FixtureServer;
let engine: CaptureEngine;
beforeAll(async () => {
  fixtures = await startFixtureServer({
    // feature-rich-html's wait: `globalVar` turns 'ready' well after load (and after the settle step).
    '/ready-later': (_req, res) =>
      html(res, `<body style="height:100vh;background:${RED}"><script>var globalVar = 'notReady'; setTimeout(() => { window.globalVar = 'ready'; document.body.style.background = '${GREEN}'; }, 1500);</script></body>`),
  });
  engine = await createTestEngine({ timeoutMs: 15_000 });
});
afterAll(async () => {
  await engine?.close();
  await fixtures?.close();
});

const colourAt = async (path: string, params: Omit<CaptureInput, 'url'> = {}) => {
  const result = await engine.capture({ url: fixtures.url(path), viewport_width: 200, viewport_height: 100, ...params });
  return (await decode(result.data as Buffer)).at(100, 50);
};

describe('Gotenberg: POST /forms/chromium/convert/html', () => {
  it('gotenberg: POST /forms/chromium/convert/html (Wait For Thenable Expression)', async () => {
    // A promise that resolves to false is not met: its resolved value gates the capture.
    expect(near(await colourAt('/ready-later', { wait_for_function: "(async () => window.globalVar === 'ready')()" }), GREEN)).toBe(true);
  });

  // feature-rich-html links doesnotexist.css, a file the upload does not have: a failed load, as
  // Chromium's net::ERR_FILE_NOT_FOUND is for Gotenberg's files, never an HTTP status.
  const missingAsset = [{ name: 'index.html', content: '<!doctype html><link rel="stylesheet" href="doesnotexist.css"><body style="background:#00ff00"></body>' }];

  it('gotenberg: POST /forms/chromium/convert/html (Fail On Resource Loading Failed)', async () => {
    const refused = await engine.capture({ files: missingAsset, format: 'pdf', fail_on_resource_failed: true }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toMatchObject({ code: 'CAPTURE_REJECTED', details: { reason: 'resource_failed' } });
    expect(JSON.stringify(refused)).toContain('doesnotexist.css');
  });

  it('gotenberg: POST /forms/chromium/convert/html (Fail On Resource HTTP Status Codes)', async () => {
    // [499,599] in Gotenberg's terms: a missing file of the upload answered no status at all.
    const result = await engine.capture({ files: missingAsset, format: 'pdf', fail_on_resource_status: '400-599' });
    expect(result.format).toBe('pdf');
  });
});
