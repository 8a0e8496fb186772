import { describe, expect, it } from 'vitest';
import { parseCaptureParams } from '../../src/core/schema/capture-params.js';
import { refusal } from '../helpers/refusal.js';

const url = 'https://example.com/';

describe('media_features', () => {
  it('takes name:value pairs, or a JSON object of them', () => {
    expect(parseCaptureParams({ url, media_features: 'forced-colors:active, prefers-contrast:more' }).media_features).toBe('forced-colors:active, prefers-contrast:more');
    expect(parseCaptureParams({ url, media_features: { 'prefers-reduced-transparency': 'reduce' } }).media_features).toBe('prefers-reduced-transparency:reduce');
  });

  it.each([
    'forced-colors',
    'forced-colors:on',
    'prefers-color-scheme:dark',
    'forced-colors:active,forced-colors:none',
    'x'.repeat(257),
  ])('refuses %s naming media_features', (media_features) => {
    expect(refusal({ media_features })).toMatchObject({ code: 'INVALID_PARAMETER', details: { param: 'media_features' } });
  });

  it('refuses an object whose values are not strings', () => {
    expect(refusal({ media_features: { 'forced-colors': 1 } })).toMatchObject({ code: 'INVALID_PARAMETER', details: { param: 'media_features' } });
  });
});
