import { describe, expect, it } from 'vitest';
import { parseCaptureParams } from '../../src/core/schema/capture-params.js';
import { insetSides } from '../../src/core/schema/shot-params.js';
import { refusal } from '../helpers/refusal.js';

const url = 'https://example.com/';

describe('mask and mask_color', () => {
  it('takes selectors and a hex colour', () => {
    expect(parseCaptureParams({ url, mask: '.ad, #banner', mask_color: '#00ff0080' })).toMatchObject({ mask: '.ad, #banner', mask_color: '#00ff0080' });
  });

  it.each([
    [{ mask: '.ad', format: 'pdf' }, ['mask', 'format']],
    [{ mask: '.ad', format: 'mp4' }, ['mask', 'format']],
    [{ mask: '.ad', format: 'markdown' }, ['mask', 'format']],
    [{ mask_color: '#000' }, ['mask_color', 'mask']],
  ])('refuses %o as INCOMPATIBLE_PARAMETERS naming both', (raw, params) => {
    expect(refusal(raw)).toMatchObject({ code: 'INCOMPATIBLE_PARAMETERS', details: { params } });
  });

  it.each([
    [{ mask: '.ad', mask_color: 'red' }, 'mask_color'],
    [{ mask: '.ad', mask_color: '#12345' }, 'mask_color'],
    [{ mask: 'x'.repeat(4097) }, 'mask'],
    [{ mask: '' }, 'mask'],
  ])('refuses %o naming %s', (raw, param) => {
    expect(refusal(raw)).toMatchObject({ code: 'INVALID_PARAMETER', details: { param } });
  });
});

describe('inset', () => {
  it('takes px to shrink (or, negative, grow) a clip or element shot', () => {
    expect(parseCaptureParams({ url, selector: 'main', inset: -5 }).inset).toBe(-5);
  });

  it.each([
    ['10', 10],
    ['10 -20', [10, -20]],
    [' 1, 2 ,3 ', [1, 2, 3]],
    ['1 2 3 4', [1, 2, 3, 4]],
    [[5, 6], [5, 6]],
    [{ top: 10, left: -5 }, [10, 0, 0, -5]],
  ])('reads %j as CSS margin values, %j', (inset, read) => {
    expect(parseCaptureParams({ url, selector: 'main', inset }).inset).toEqual(read);
  });

  it.each([
    [[], { top: 0, right: 0, bottom: 0, left: 0 }],
    [7, { top: 7, right: 7, bottom: 7, left: 7 }],
    [[1, 2], { top: 1, right: 2, bottom: 1, left: 2 }],
    [[1, 2, 3], { top: 1, right: 2, bottom: 3, left: 2 }],
    [[1, 2, 3, 4], { top: 1, right: 2, bottom: 3, left: 4 }],
  ])('gives %j the sides CSS margin would, %j', (inset, sides) => {
    expect(insetSides(inset)).toEqual(sides);
  });

  it.each([1001, -1001, 1.5, '1 2 3 4 5', [1, 2, 3, 4, 5], [], '1 1001', '1px', '1;2', '', [1, 'x'], { top: 1, middle: 2 }, { top: '1' }])('refuses %j naming inset', (inset) => {
    expect(refusal({ selector: 'main', inset })).toMatchObject({ code: 'INVALID_PARAMETER', details: { param: 'inset' } });
  });

  it.each([{ inset: 10 }, { inset: 10, full_page: true }])('refuses %o without a clip or selector as INCOMPATIBLE_PARAMETERS', (raw) => {
    expect(refusal(raw)).toMatchObject({ code: 'INCOMPATIBLE_PARAMETERS', details: { params: ['inset', 'selector'] } });
  });
});
