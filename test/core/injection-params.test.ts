import { describe, expect, it } from 'vitest';
import { parseCaptureParams } from '../../src/core/schema/capture-params.js';
import { refusal } from '../helpers/refusal.js';
import { MAX_INJECTED_URLS } from '../../src/core/schema/injection-params.js';
import { checkTierGates, resolveTiers } from '../../src/access/tiers.js';

const url = 'https://example.com/';

describe('init_scripts, script_urls, style_urls, scripts_type and referrer', () => {
  it('takes them', () => {
    expect(parseCaptureParams({ url, init_scripts: 'window.a = 1', script_urls: 'https://cdn.example/a.js, https://cdn.example/b.js', scripts_type: 'module', referrer: 'https://news.example/' })).toMatchObject({
      init_scripts: 'window.a = 1',
      scripts_type: 'module',
    });
  });

  it.each([
    [{ script_urls: Array.from({ length: MAX_INJECTED_URLS + 1 }, (_, i) => `https://cdn.example/${i}.js`).join(',') }, 'script_urls'],
    [{ script_urls: 'javascript:alert(1)' }, 'script_urls'],
    [{ style_urls: 'file:///etc/passwd' }, 'style_urls'],
    [{ style_urls: 'x'.repeat(8193) }, 'style_urls'],
    [{ init_scripts: 'x'.repeat(32 * 1024 + 1) }, 'init_scripts'],
    [{ referrer: 'ftp://news.example/' }, 'referrer'],
    [{ scripts: 'x', scripts_type: 'esm' }, 'scripts_type'],
  ])('refuses %o naming %s', (raw, param) => {
    expect(refusal(raw)).toMatchObject({ code: 'INVALID_PARAMETER', details: { param } });
  });

  it.each([
    [{ scripts_type: 'module' }, ['scripts_type', 'scripts']],
    [{ url: undefined, html: '<p>x</p>', referrer: 'https://news.example/' }, ['referrer', 'url']],
  ])('refuses %o as INCOMPATIBLE_PARAMETERS', (raw, params) => {
    expect(refusal(raw)).toMatchObject({ code: 'INCOMPATIBLE_PARAMETERS', details: { params } });
  });

  it.each(['init_scripts', 'script_urls'])('gates %s with scripts: a tier without the caller\'s JavaScript refuses it', (param) => {
    const tiers = resolveTiers({ FREE: { scripts: false } });
    const params = parseCaptureParams({ url, [param]: param === 'init_scripts' ? 'window.a = 1' : 'https://cdn.example/a.js' });
    expect(() => checkTierGates(params, 'FREE', tiers)).toThrow(expect.objectContaining({ code: 'TIER_RESTRICTED', details: expect.objectContaining({ param }) }));
    expect(() => checkTierGates(params, 'PRO', tiers)).not.toThrow();
  });
});
