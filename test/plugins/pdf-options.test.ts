import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CaptureEngine } from '../../src/index.js';
import { createTestEngine } from '../helpers/engine.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { decode, near } from '../helpers/pixels.js';

/** What the PDF options refuse, and media_type (the PDFs themselves are read with poppler in test/adapters/documents.test.ts). */
let fixtures: FixtureServer;
let engine: CaptureEngine;

beforeAll(async () => {
  fixtures = await startFixtureServer();
  engine = await createTestEngine();
});
afterAll(async () => {
  await engine?.close();
  await fixtures?.close();
});

const errorOf = (params: Record<string, unknown>): Promise<unknown> => engine.capture({ url: fixtures.url('/bands?count=6&band=500'), format: 'pdf', ...params }).then(() => undefined, (error: unknown) => error);

describe('PDF options', () => {
  it('refuses PDF options on other formats, half a custom size and sizes beyond 200 in', async () => {
    expect(await errorOf({ format: 'png', pdf_scale: 0.5 })).toMatchObject({ code: 'INCOMPATIBLE_PARAMETERS', details: { params: ['pdf_scale', 'format'] } });
    expect(await errorOf({ pdf_width: '5in' })).toMatchObject({ code: 'INVALID_PARAMETER', details: { param: 'pdf_height' } });
    expect(await errorOf({ pdf_width: '300in', pdf_height: '5in' })).toMatchObject({ code: 'INVALID_PARAMETER', details: { param: 'pdf_width' } });
    expect(await errorOf({ pdf_margin_top: '1furlong' })).toMatchObject({ code: 'INVALID_PARAMETER', details: { param: 'pdf_margin_top' } });
  });
});

describe('PDF options for documents people ship', () => {
  it('renders a screenshot in print media when asked, in screen media by default', async () => {
    const shot = async (params: Record<string, unknown>): Promise<[number, number, number]> => {
      const result = await engine.capture({ url: fixtures.url('/print-media'), viewport_width: 200, viewport_height: 100, ...params });
      return (await decode(result.data as Buffer)).at(100, 50);
    };
    expect(near(await shot({}), '#ff0000')).toBe(true);
    expect(near(await shot({ media_type: 'print' }), '#0000ff')).toBe(true);
    expect(near(await shot({ media_type: 'screen' }), '#ff0000')).toBe(true);
  });
});
