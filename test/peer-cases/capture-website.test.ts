import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CaptureEngine, CaptureInput } from '../../src/index.js';
import { createTestEngine } from '../helpers/engine.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { decode, near } from '../helpers/pixels.js';

/**
 * capture-website's own tests (test.js at sindresorhus/capture-website), translated to our
 * parameters: what someone moving from `captureWebsite.file()` expects (issue 51). Each test is
 * named after its case.
 */
let fixtures: FixtureServer;
let engine: CaptureEngine;
beforeAll(async () => {
  fixtures = await startFixtureServer({
    // The page of '`scrollToElement` option as string': four squares in a 200 px box inside a 100 px scrolling one.
    '/scroll-box': (_req, res) =>
      res.writeHead(200, { 'Content-Type': 'text/html' }).end(`<body style="margin: 0;">
        <div style="width: 100px; height: 100px; overflow: auto;">
          <div style="width: 200px; height: 200px; display: flex; flex-wrap: wrap">
            <div id="red" style="background-color: #f00; width: 100px; height: 100px; flex: 1 0 auto;"></div>
            <div id="green" style="background-color: #0f0; width: 100px; height: 100px; flex: 1 0 auto;"></div>
            <div id="blue" style="background-color: #00f; width: 100px; height: 100px; flex: 1 0 auto;"></div>
            <div id="black" style="background-color: #000; width: 100px; height: 100px; flex: 1 0 auto;"></div>
          </div>
        </div>
      </body>`),
  });
  engine = await createTestEngine();
});
afterAll(async () => {
  await engine?.close();
  await fixtures?.close();
});

const pixelAt = async (path: string, params: Omit<CaptureInput, 'url'>, y = 0) => {
  const result = await engine.capture({ url: fixtures.url(path), viewport_width: 100, viewport_height: 100, ...params });
  return (await decode(result.data as Buffer)).at(0, y);
};

describe('capture-website', () => {
  it('capture-website: `scrollToElement` option as string', async () => {
    // The element is inside a scrolling box, to the right and below: both of the box's axes scroll.
    expect(near(await pixelAt('/scroll-box', { scroll_into_view: '#black' }), '#000000')).toBe(true);
    // Our offset keeps room above the element, in the box too (capture-website's scrolls past it).
    expect(near(await pixelAt('/scroll-box', { scroll_into_view: '#black', scroll_into_view_offset: 50 }, 10), '#00ff00')).toBe(true);
    expect(near(await pixelAt('/scroll-box', { scroll_into_view: '#black', scroll_into_view_offset: 50 }, 60), '#000000')).toBe(true);
  });
});
