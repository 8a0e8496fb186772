import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CaptureEngine } from '../../src/index.js';
import { createTestEngine } from '../helpers/engine.js';
import { html, startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { decode, near } from '../helpers/pixels.js';

let fixtures: FixtureServer;
let engine: CaptureEngine;
beforeAll(async () => {
  fixtures = await startFixtureServer({
    // A blue card of 100 x 60 px at (50, 50) on red.
    '/plain': (_req, res) => html(res, '<body style="height:100vh;background:#ff0000"><div id="card" style="position:absolute;left:50px;top:50px;width:100px;height:60px;background:#0000ff"></div></body>'),
  });
  engine = await createTestEngine({ timeoutMs: 8000 });
});
afterAll(async () => {
  await engine?.close();
  await fixtures?.close();
});

describe('inset (a clip or element shot shrunk or grown)', () => {
  it('takes px off each side of an element shot, or adds page around it', async () => {
    const shrunk = await engine.capture({ url: fixtures.url('/plain'), viewport_width: 200, viewport_height: 150, selector: '#card', inset: 10 });
    expect([shrunk.width, shrunk.height]).toEqual([80, 40]);
    const inner = await decode(shrunk.data as Buffer);
    expect(near(inner.at(0, 0), '#0000ff')).toBe(true);
    const grown = await engine.capture({ url: fixtures.url('/plain'), viewport_width: 200, viewport_height: 150, selector: '#card', inset: -10 });
    expect([grown.width, grown.height]).toEqual([120, 80]);
    const outer = await decode(grown.data as Buffer);
    expect([near(outer.at(2, 2), '#ff0000'), near(outer.at(15, 15), '#0000ff')]).toEqual([true, true]);
  });

  it('shrinks a clip; one that leaves nothing is INVALID_PARAMETER naming inset', async () => {
    const clip = { clip_x: 0, clip_y: 0, clip_width: 100, clip_height: 100 };
    const shot = await engine.capture({ url: fixtures.url('/plain'), viewport_width: 200, viewport_height: 150, ...clip, inset: 25 });
    expect([shot.width, shot.height]).toEqual([50, 50]);
    expect(near((await decode(shot.data as Buffer)).at(40, 40), '#0000ff')).toBe(true);
    await expect(engine.capture({ url: fixtures.url('/plain'), ...clip, inset: 50 })).rejects.toMatchObject({ code: 'INVALID_PARAMETER', details: { param: 'inset' } });
  });

  it('takes each side its own inset, in CSS margin order', async () => {
    // The card (50, 50, 100 x 60): 10 off its top, 20 added right, 5 off its bottom, 30 added left.
    const shot = await engine.capture({ url: fixtures.url('/plain'), viewport_width: 200, viewport_height: 150, selector: '#card', inset: '10 -20 5 -30' });
    expect([shot.width, shot.height]).toEqual([150, 45]);
    const image = await decode(shot.data as Buffer);
    expect([near(image.at(28, 20), '#ff0000'), near(image.at(32, 0), '#0000ff'), near(image.at(32, 44), '#0000ff'), near(image.at(128, 20), '#0000ff'), near(image.at(133, 20), '#ff0000')]).toEqual([true, true, true, true, true]);
    // Two values: top and bottom, then left and right; what leaves nothing of one side is refused.
    const clip = { clip_x: 0, clip_y: 0, clip_width: 100, clip_height: 100 };
    expect(await engine.capture({ url: fixtures.url('/plain'), viewport_width: 200, viewport_height: 150, ...clip, inset: [10, 40] })).toMatchObject({ width: 20, height: 80 });
    await expect(engine.capture({ url: fixtures.url('/plain'), ...clip, inset: '0 50' })).rejects.toMatchObject({ code: 'INVALID_PARAMETER', details: { param: 'inset' } });
  });
});
