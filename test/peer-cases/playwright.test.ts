import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CaptureEngine, CaptureInput } from '../../src/index.js';
import { createTestEngine } from '../helpers/engine.js';
import { html, startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { decode, differingPixels, near } from '../helpers/pixels.js';

/**
 * Playwright's own screenshot tests (tests/page/page-screenshot.spec.ts, tests/library/screenshot.spec.ts,
 * tests/page/elementhandle-screenshot.spec.ts at microsoft/playwright), translated to our parameters:
 * what someone moving from `page.screenshot()` expects (issue 51). Each test is named after its case.
 */
const RED = '#ff0000';
const GREEN = '#00ff00';
const BLUE = '#0000ff';

let fixtures: FixtureServer;
let engine: CaptureEngine;
beforeAll(async () => {
  fixtures = await startFixtureServer({
    // rotate-z-shadow-dom.html's case: an infinite animation inside a shadow root, on green; from red to blue, 1 s in.
    '/shadow-animation': (_req, res) =>
      html(
        res,
        `<body><div id="host"></div><script>
          const shadow = host.attachShadow({ mode: 'open' });
          shadow.innerHTML = '<style>@keyframes spin { from { background: ${RED} } to { background: ${BLUE} } } div { height: 100vh; background: ${GREEN}; animation: spin 2s linear -1s infinite }</style><div></div>';
        </script></body>`,
      ),
    // rotate-z.html with its animation paused by the page (playbackRate 0) halfway from red to blue.
    '/paused-animation': (_req, res) =>
      html(
        res,
        `<style>@keyframes fade { from { background: ${RED} } to { background: ${BLUE} } } body { height: 100vh; background: ${GREEN}; animation: fade 1s linear infinite }</style><body><script>
          const animation = document.getAnimations()[0];
          animation.updatePlaybackRate(0);
          animation.ready.then(() => { animation.currentTime = 500; });
        </script></body>`,
      ),
    // The element of 'should wait for visible': hidden at load, shown 20 frames later (Playwright's rafraf(page, 10)).
    '/shown-after-frames': (_req, res) =>
      html(
        res,
        `<body style="background:#ffffff"><div id="box" style="visibility:hidden;margin:20px;width:50px;height:50px;background:${BLUE}"></div><script>
          addEventListener('load', () => {
            let frames = 20;
            const tick = () => (--frames > 0 ? requestAnimationFrame(tick) : (box.style.visibility = 'visible'));
            requestAnimationFrame(tick);
          });
        </script></body>`,
      ),
    // The field of 'should not capture blinking caret by default', focused, its caret red and wide as stylesheets can make it.
    '/focused-field': (_req, res) =>
      html(res, `<style>div { caret-color: ${RED} !important; font: 60px/80px monospace; outline: none }</style><body style="background:#ffffff"><div contenteditable="true" autofocus>foo bar</div><script>
        const div = document.querySelector('div');
        div.focus();
        getSelection().collapse(div.firstChild, 3);
      </script></body>`),
    // The focused field once more, on a page that navigates when its field's caret is hidden (the engine's
    // inline style): the shot is taken again on the new document, whose field the engine has not touched.
    '/navigating-field': (_req, res, query) =>
      html(res, `<style>div { caret-color: ${RED} !important; font: 60px/80px monospace; outline: none }</style><body style="background:#ffffff"><div contenteditable="true">foo bar</div><script>
        const div = document.querySelector('div');
        div.focus();
        getSelection().collapse(div.firstChild, 3);
        ${query.has('again') ? '' : "new MutationObserver(() => location.replace('?again')).observe(div, { attributes: true });"}
      </script></body>`),
    // The custom elements of 'should capture blinking caret in shadow dom': the focused input two shadow roots down.
    '/focused-shadow-field': (_req, res) =>
      html(res, `<body style="background:#ffffff"><div id="outer"></div><script>
        const middle = outer.attachShadow({ mode: 'open' });
        middle.innerHTML = '<div id="inner"></div>';
        const inner = middle.getElementById('inner').attachShadow({ mode: 'open' });
        inner.innerHTML = '<style>input { caret-color: ${RED}; font: 60px/80px monospace; border: 0; outline: none }</style><input value="foo bar">';
        inner.querySelector('input').focus();
      </script></body>`),
    // webfont.html with its font request stalled: text in a web font whose file never comes.
    '/stalled-font': (_req, res) =>
      html(res, `<style>@font-face { font-family: Stalled; src: url(/never); }</style><body style="background:#ffffff"><div style="font:60px/80px Stalled">Wg</div></body>`),
    // overflow.html and overflow-large.html as they are (no doctype: quirks mode, rows of 51 px): 50 px boxes
    // in five greys, no viewport meta tag, so a phone lays them out 980 px wide.
    '/overflow': (_req, res, query) =>
      res.writeHead(200, { 'Content-Type': 'text/html' }).end(`<style>
body { margin: 0; padding: 0; }
div { display: inline-flex; width: 50px; height: 50px; border-right: 1px solid black; border-bottom: 1px solid black; }
</style>
<body></body>
<script>
const colors = ['#222', '#444', '#666', '#888', '#aaa'];
for (let i = 0; i < ${Number(query.get('boxes') ?? 200)}; ++i) {
  const div = document.createElement('div');
  div.style.setProperty('background-color', colors[i % 5]);
  document.body.appendChild(div);
}
</script>`),
  });
  engine = await createTestEngine({ timeoutMs: 10_000 });
});
afterAll(async () => {
  await engine?.close();
  await fixtures?.close();
});

const shot = (path: string, params: Omit<CaptureInput, 'url'> = {}) => engine.capture({ url: fixtures.url(path), viewport_width: 200, viewport_height: 100, ...params });
const colourAt = async (path: string, params: Omit<CaptureInput, 'url'> = {}, x = 100, y = 50) => (await decode((await shot(path, params)).data as Buffer)).at(x, y);

describe('Playwright: page screenshot animations (reduced_motion as animations: "disabled")', () => {
  it('playwright: should not capture css animations in shadow DOM', async () => {
    expect(near(await colourAt('/shadow-animation'), GREEN)).toBe(false);
    expect(near(await colourAt('/shadow-animation', { reduced_motion: true }), GREEN)).toBe(true);
  });

  it('playwright: should not change animation with playbackRate equal to 0', async () => {
    // Halfway from red to blue, as the page left it, with or without reduced_motion.
    expect(near(await colourAt('/paused-animation'), '#800080', 16)).toBe(true);
    expect(near(await colourAt('/paused-animation', { reduced_motion: true }), '#800080', 16)).toBe(true);
  });
});

describe('Playwright: element screenshot (selector)', () => {
  it('playwright: should wait for visible', async () => {
    const result = await shot('/shown-after-frames', { selector: '#box', wait_until: 'load' });
    expect([result.width, result.height]).toEqual([50, 50]);
    expect(near((await decode(result.data as Buffer)).at(25, 25), BLUE)).toBe(true);
  });
});

/** How many pixels of a shot are the caret's red. */
async function caretPixels(params: Omit<CaptureInput, 'url'>, path = '/focused-field'): Promise<number> {
  const image = await decode((await engine.capture({ url: fixtures.url(path), viewport_width: 400, viewport_height: 100, ...params })).data as Buffer);
  let red = 0;
  for (let y = 0; y < image.height; y++) for (let x = 0; x < image.width; x++) if (near(image.at(x, y), RED, 40)) red++;
  return red;
}
/** Shots a quarter of the caret's blink (500 ms on, 500 ms off) apart: some fall while it shows. */
const BLINK_PHASES = [0, 250, 500, 750];

describe('Playwright: page screenshot (caret)', () => {
  it('playwright: should not capture blinking caret by default', async () => {
    for (const delay of BLINK_PHASES) expect(await caretPixels({ delay })).toBe(0);
  });

  it('playwright: should capture blinking caret in shadow dom', async () => {
    // Playwright's case takes it with caret: 'hide' and finds no blink; hiding is the default here.
    for (const delay of BLINK_PHASES) expect(await caretPixels({ delay }, '/focused-shadow-field')).toBe(0);
    const shown = await Promise.all(BLINK_PHASES.map((delay) => caretPixels({ delay, caret: 'initial' } as Omit<CaptureInput, 'url'>, '/focused-shadow-field')));
    expect(shown.some((red) => red > 0)).toBe(true);
  });

  it('playwright: should not capture blinking caret by default, after the page navigated during the shot', async () => {
    // The new document's caret shows from its focus on, for half a blink: one shot, taken at once, would catch it.
    expect(await caretPixels({}, '/navigating-field')).toBe(0);
  });

  it('playwright: should capture blinking caret if explicitly asked for', async () => {
    const shown = await Promise.all(BLINK_PHASES.map((delay) => caretPixels({ delay, caret: 'initial' } as Omit<CaptureInput, 'url'>)));
    expect(shown.some((red) => red > 0)).toBe(true);
  });
});

describe('Playwright: page screenshot (fonts)', () => {
  it('playwright: should wait for fonts to load', async () => {
    // Playwright's screenshot times out "waiting for fonts to load...": ours names the wait.
    const refused = await shot('/stalled-font', { timeout: 2000 }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toMatchObject({ code: 'CAPTURE_TIMEOUT', details: { param: 'fonts' } });
    // With best_effort the page is taken with its fallback font, and the answer says the fonts did not load.
    const anyway = await shot('/stalled-font', { timeout: 2000, best_effort: true });
    expect(anyway.incomplete).toContain('fonts');
    // A font that comes late is waited for: the shot is the same as once it is there.
    const late = await shot('/webfont', { viewport_width: 400, viewport_height: 200, settle: false });
    const patient = await shot('/webfont', { viewport_width: 400, viewport_height: 200, settle: false, delay: 1500 });
    expect(await differingPixels(late.data as Buffer, patient.data as Buffer)).toBe(0);
  });
});

describe('Playwright: page screenshot with a mobile viewport (is_mobile, no viewport meta tag)', () => {
  const phone = { viewport_width: 320, viewport_height: 480, is_mobile: true };

  it('playwright: should work with a mobile viewport and fullPage', async () => {
    const result = await engine.capture({ url: fixtures.url('/overflow?boxes=1000'), ...phone, full_page: true });
    // The golden screenshot-mobile-fullpage-chromium.png: the page as laid out, 980 px wide, 53 rows of 51 px.
    expect([result.width, result.height]).toEqual([980, 2703]);
    const image = await decode(result.data as Buffer);
    expect([image.width, image.height]).toEqual([980, 2703]);
    // Boxes on the right of the layout, which a 320 px wide shot lost.
    expect(near(image.at(950, 25), '#ffffff', 8)).toBe(false);
  });

  it('playwright: should work with a mobile viewport and clip', async () => {
    const clip = { clip_x: 10, clip_y: 10, clip_width: 100, clip_height: 150 };
    const [clipped, whole] = await Promise.all([engine.capture({ url: fixtures.url('/overflow'), ...phone, ...clip }), engine.capture({ url: fixtures.url('/overflow'), ...phone })]);
    expect([clipped.width, clipped.height]).toEqual([100, 150]);
    // The clip is that rectangle of the viewport shot: the page zoomed out as the phone shows it.
    const part = await decode(clipped.data as Buffer);
    const view = await decode(whole.data as Buffer);
    let differing = 0;
    for (let y = 0; y < 150; y++) for (let x = 0; x < 100; x++) if (!near(part.at(x, y), view.at(x + 10, y + 10), 24)) differing++;
    expect(differing).toBeLessThan(100 * 150 * 0.03);
  });
});
