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
    // The page of '`isJavaScriptEnabled: false` option': black, turned red by its own script.
    '/script-turns-red': (_req, res) =>
      res.writeHead(200, { 'Content-Type': 'text/html' }).end(`<body style="margin: 0;">
        <div style="background-color: black; width: 100px; height: 100px;"></div>
        <script>
          setTimeout(function() {
            document.querySelector('div').style.backgroundColor = 'red';
          }, 500);
        </script>
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

  it('capture-website: `isJavaScriptEnabled: false` option', async () => {
    const result = await engine.capture({ url: fixtures.url('/script-turns-red'), viewport_width: 100, viewport_height: 100, delay: 1, javascript: false, response_type: 'json', diagnostics: true });
    expect(near((await decode(result.data as Buffer)).at(0, 0), '#000000')).toBe(true);
    // The settle step sees a page without scripts as still: met, not run out at its cap.
    expect(result.diagnostics?.waits.find((wait) => wait.name === 'settle')?.outcome).toBe('met');
    // The engine's other waits in the page (an element to be visible, resize events held back
    // during a full-page shot) ran no timer there either, and held the capture until its timeout.
    const element = await engine.capture({ url: fixtures.url('/script-turns-red'), viewport_width: 100, viewport_height: 100, javascript: false, selector: 'div', timeout: 8000 });
    expect([element.width, element.height]).toEqual([100, 100]);
    const whole = await engine.capture({ url: fixtures.url('/bands?count=3&band=100'), viewport_width: 100, viewport_height: 100, javascript: false, full_page: true, timeout: 8000 });
    expect([whole.width, whole.height]).toEqual([100, 300]);
    expect(near((await decode(whole.data as Buffer)).at(50, 250), '#0000ff')).toBe(true);
  });

  it('capture-website: `type: pdf` validation - rejects quality option', async () => {
    const refused = await engine.capture({ url: fixtures.url('/scroll-box'), format: 'pdf', quality: 50 }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toMatchObject({ code: 'INCOMPATIBLE_PARAMETERS', details: { params: ['quality', 'format'] } });
  });
});
