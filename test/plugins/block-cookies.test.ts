import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CORPUS } from '../../fixtures/corpus/manifest.js';
import { near } from '../helpers/pixels.js';
import { colourAt, isBanner, isContent, openCorpus, shoot, type Corpus } from './block-corpus.js';

const withBanner = CORPUS.filter((page) => page.banner);

let corpus: Corpus;
beforeAll(async () => {
  corpus = await openCorpus();
});
afterAll(async () => {
  await corpus?.close();
});

describe('block_cookies on the corpus', () => {
  it.each(withBanner.map((page) => [page.name, page] as const))('%s: banner shown without blocking, gone with it, page scrollable', async (_name, page) => {
    const [before, after] = await Promise.all([shoot(corpus, page), shoot(corpus, page, { block_cookies: true })]);
    const banner = page.banner!;
    expect(isBanner(before, banner), `banner colour without blocking at ${banner}, got ${colourAt(before, banner)}`).toBe(true);
    expect(isContent(after, banner), `content behind the banner at ${banner}, got ${colourAt(after, banner)}`).toBe(true);
    if (page.overlay) {
      expect(isContent(before, page.overlay), 'the backdrop darkens the page without blocking').toBe(false);
      expect(isContent(after, page.overlay), `no backdrop left, got ${colourAt(after, page.overlay)}`).toBe(true);
    }
    const seen = after.inspection!;
    expect(seen.overflowY).not.toContain('hidden');
    expect(seen.bodyPosition).not.toBe('fixed');
    expect(seen.blurred, 'no blur left on the content').toBe(false);
    expect(seen.scrollHeight).toBeGreaterThan(800);
    expect(seen.scrolledTo, 'the page scrolls after dismissal').toBeGreaterThan(0);
    if (page.scrollLocked) {
      const locked = before.inspection!.overflowY.includes('hidden') || before.inspection!.bodyPosition === 'fixed';
      if (page.name === 'privacy-wall') expect(before.inspection!.blurred, 'the fixture really blurs the page').toBe(true);
      expect(locked, 'the fixture really locks scrolling').toBe(true);
    }
  });

  it('opts out through autoconsent where its rules know the CMP', async () => {
    const page = CORPUS.find((p) => p.name === 'cookieconsent-bar')!;
    const shot = await shoot(corpus, page, { block_cookies: true });
    const result = shot.inspection!.cookies as { autoconsent: { cmp: string; optedOut: boolean }[] };
    // Whether autoconsent starts within its 250 ms cap depends on the machine's load (the cosmetic
    // fallback then dismisses the banner, as the pixel tests check); when it reports, it opted out.
    for (const entry of result.autoconsent) expect(entry).toMatchObject({ cmp: 'cookieconsent3', optedOut: true });
  });

  it('keeps the whole page: a full-page capture after dismissal is as tall as the page', async () => {
    const page = CORPUS.find((p) => p.name === 'privacy-wall')!;
    const [locked, dismissed] = await Promise.all([shoot(corpus, page, { full_page: true }), shoot(corpus, page, { full_page: true, block_cookies: true })]);
    expect(locked.height).toBe(800);
    expect(dismissed.height).toBeGreaterThan(2500);
  });

  it('leaves sticky headers and help widgets that merely mention privacy alone', async () => {
    const page = CORPUS.find((p) => p.name === 'sticky-nav')!;
    const shot = await shoot(corpus, page, { block_cookies: true, block_ads: true });
    for (const { point, colour } of page.keep!) {
      expect(near(shot.image.at(point[0], point[1]), colour), `${point} keeps ${colour}, got ${colourAt(shot, point)}`).toBe(true);
    }
    expect(shot.inspection!.cookies).toMatchObject({ fallback: { known: 0, heuristic: 0, overlays: 0, unlocked: false } });
  });

  it('hide_selectors still applies with block_cookies', async () => {
    const page = CORPUS.find((p) => p.name === 'cookieconsent-bar')!;
    const shot = await shoot(corpus, page, { block_cookies: true, hide_selectors: 'header.site' });
    expect(isContent(shot, [640, 30]), `header hidden, got ${colourAt(shot, [640, 30])}`).toBe(true);
    expect(isContent(shot, page.banner!)).toBe(true);
  });
});
