import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CaptureEngine } from '../../src/index.js';
import { createTestEngine } from '../helpers/engine.js';
import { html, startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { decode, near } from '../helpers/pixels.js';

const RED = '#ff0000';
const GREEN = '#00ff00';

/** A full-page shot must show the page in the state a person opening it sees, whatever the capture did to see all of it. */
let fixtures: FixtureServer;
let engine: CaptureEngine;
beforeAll(async () => {
  fixtures = await startFixtureServer({
    // A side menu scrolled to its current item at start-up, which follows the window's scroll
    // afterwards (as Read the Docs' theme does): only its current item is green.
    '/side-menu': (_req, res) =>
      html(
        res,
        `<body style="margin:0;height:3000px;background:#ffffff">
          <nav id="menu" style="position:fixed;top:0;left:0;width:100px;height:100px;overflow:auto">
            <div style="height:500px;background:${RED}"></div><div style="height:100px;background:${GREEN}"></div><div style="height:900px;background:${RED}"></div>
          </nav>
          <script>menu.scrollTop = 500; addEventListener('scroll', () => { menu.scrollTop = scrollY; });</script></body>`,
      ),
    // A layout that folds when the window is resized (as Doxygen's navigation pane does on a tiny window).
    '/folds-on-resize': (_req, res, q) =>
      html(res, `<body style="margin:0;height:${q.get('height') ?? '100vh'};background:${GREEN}"><script>addEventListener('resize', () => { document.body.style.background = '${RED}'; });</script></body>`),
  });
  engine = await createTestEngine();
});
afterAll(async () => {
  await engine?.close();
  await fixtures?.close();
});

describe('full-page shots leave the page as it was', () => {
  it('puts a side menu that followed the reveal scroll back on its current item', async () => {
    const shot = await engine.capture({ url: fixtures.url('/side-menu'), full_page: true, viewport_width: 400, viewport_height: 300 });
    const image = await decode(shot.data as Buffer);
    expect(image.height).toBe(3000);
    expect(near(image.at(50, 50), GREEN)).toBe(true);
  });

  it.each([
    ['a page that fits the viewport, without resizing its window', '', 300],
    ['a taller page, with the resize events of the beyond-viewport shot held back from it', '?height=3000px', 3000],
  ])('takes %s', async (_what, query, height) => {
    for (let i = 0; i < 5; i++) {
      const shot = await engine.capture({ url: fixtures.url(`/folds-on-resize${query}`), full_page: true, viewport_width: 400, viewport_height: 300 });
      const image = await decode(shot.data as Buffer);
      expect([image.width, image.height]).toEqual([400, height]);
      expect(near(image.at(200, height / 2), GREEN)).toBe(true);
    }
  });
});
