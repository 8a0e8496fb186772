import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CaptureEngine, CaptureInput } from '../../src/index.js';
import { createTestEngine } from '../helpers/engine.js';
import { html, startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { decode, near } from '../helpers/pixels.js';

/**
 * shot-scraper's documented patterns (docs/screenshots.md and docs/javascript.md at simonw/shot-scraper),
 * translated to our parameters: what someone moving from `shot-scraper --javascript` and
 * `--wait-for` expects (issue 51). Each test is named after the passage it comes from.
 */
const RED = '#ff0000';
const GREEN = '#00ff00';

let fixtures: FixtureServer;
let engine: CaptureEngine;
beforeAll(async () => {
  fixtures = await startFixtureServer({
    // A consent overlay over a green page.
    '/overlay': (_req, res) => html(res, `<body style="height:100vh;background:${GREEN}"><div id="sp_message_container_1" style="position:fixed;inset:0;background:${RED}"></div></body>`),
    '/red': (_req, res) => html(res, `<body style="height:100vh;background:${RED}"></body>`),
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

describe('shot-scraper: --wait-for and --javascript', () => {
  it("shot-scraper: --wait-for \"() => { ... }\" (docs/screenshots.md: wait for the consent overlay, remove it, return true)", async () => {
    const waitFor = `() => {
      const div = document.querySelector('[id^="sp_message_container"]');
      if (div) {
        div.remove();
        return true;
      }
    }`;
    expect(near(await colourAt('/overlay', { wait_for_function: waitFor }), GREEN)).toBe(true);
  });

  it('shot-scraper: --javascript "new Promise(takeShot => { ... })" (docs/screenshots.md: resolving the promise takes the shot)', async () => {
    const script = `new Promise(takeShot => {
  setTimeout(() => {
    document.body.style.background = '${GREEN}';
    // Resolving the promise takes the shot
    takeShot();
  }, 500);
});`;
    expect(near(await colourAt('/red', { scripts: script }), GREEN)).toBe(true);
  });
});
