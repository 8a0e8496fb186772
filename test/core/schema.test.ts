import { describe, expect, it } from 'vitest';
import { parseCaptureParams, captureParamsJsonSchema, PARAM_NAMES } from '../../src/core/schema/capture-params.js';
import { CaptureError } from '../../src/core/errors/catalogue.js';

const url = 'https://example.com/';

function errorOf(raw: Record<string, unknown>): CaptureError {
  try {
    parseCaptureParams(raw);
  } catch (error) {
    if (error instanceof CaptureError) return error;
    throw error;
  }
  throw new Error('expected a CaptureError');
}

describe('request schema', () => {
  it('applies the documented defaults', () => {
    expect(parseCaptureParams({ url })).toEqual({
      url,
      format: 'png',
      viewport_width: 1920,
      viewport_height: 1080,
      full_page: false,
      quality: 90,
      image_fit: 'cover',
      response_type: 'image',
      block_ads: false,
      block_cookies: false,
      block_trackers: false,
      block_chats: false,
      javascript: true,
      hide_selectors: '',
      hide_mode: 'remove',
      scenario: 'static',
      duration: 5,
      scroll_delay: 500,
      scroll_by: 1000,
      wait_until: 'domcontentloaded',
      delay: 0,
      settle: true,
      best_effort: false,
      fail_on_console_error: false,
      fail_on_resource_failed: false,
      diagnostics: false,
      har: false,
      is_mobile: false,
      has_touch: false,
      dark_mode: false,
      reduced_motion: false,
      caret: 'hide',
      omit_background: false,
      scroll_into_view_offset: 0,
      selector_all: false,
      show_cursor: false,
      padding: 0,
      fail_on_http_error: false,
      metadata: false,
      pdf_paper: 'A4',
      pdf_landscape: false,
      pdf_print_background: true,
      scroll_easing: 'ease_in_out',
      scroll_start_delay: 0,
      scroll_back: false,
      gif_fps: 10,
      pdf_scale: 1,
      pdf_prefer_css_page_size: false,
      pdf_single_page: false,
      pdf_tagged: false,
      pdf_outline: false,
      cache: false,
      cache_ttl: 86_400,
      cache_stale_ttl: 0,
      fresh: false,
      async: false,
      on_bot_challenge: 'reject',
      robots_txt: 'ignore',
      pdf_ua: false,
      pdf_watermark_opacity: 0.3,
      pdf_watermark_angle: 45,
      pdf_stamp_opacity: 1,
      pdf_stamp_angle: 0,
      pdf_linearize: false,
      pdf_sign: false,
      pdf_optimize: false,
      pdf_flatten: false,
      pdf_split_unify: false,
    });
  });

  it('takes pdf as a still and gif as a video of at most 30 s, and refuses what they cannot do', () => {
    expect(parseCaptureParams({ url, format: 'pdf', full_page: 'true' })).toMatchObject({ format: 'pdf', scenario: 'static' });
    expect(parseCaptureParams({ url, format: 'gif' })).toMatchObject({ format: 'gif', scenario: 'scroll', gif_fps: 10 });
    expect(parseCaptureParams({ url, scenario: 'record', format: 'gif', duration: '30', gif_fps: '5' })).toMatchObject({ scenario: 'record', gif_fps: 5 });
    expect(errorOf({ url, format: 'gif', duration: '31' })).toMatchObject({ code: 'INCOMPATIBLE_PARAMETERS', details: { params: ['duration', 'format'] } });
    expect(errorOf({ url, format: 'pdf', scenario: 'scroll' })).toMatchObject({ code: 'INCOMPATIBLE_PARAMETERS', details: { params: ['format', 'scenario'] } });
    expect(errorOf({ url, format: 'pdf', selector: 'h1' })).toMatchObject({ code: 'INCOMPATIBLE_PARAMETERS', details: { params: ['selector', 'format'] } });
    expect(errorOf({ url, format: 'gif', omit_background: 'true' })).toMatchObject({ code: 'INCOMPATIBLE_PARAMETERS', details: { params: ['omit_background', 'format'] } });
    expect(errorOf({ url, format: 'pdf', pdf_paper: 'B5' })).toMatchObject({ code: 'INVALID_PARAMETER', details: { param: 'pdf_paper', allowed: 'A3, A4, A5, Letter, Legal, Tabloid' } });
    expect(errorOf({ url, format: 'gif', gif_fps: '60' })).toMatchObject({ code: 'INVALID_PARAMETER', details: { param: 'gif_fps' } });
    expect(errorOf({ url, cache_ttl: '60' })).toMatchObject({ code: 'INCOMPATIBLE_PARAMETERS', details: { params: ['cache_ttl', 'cache'] } });
    expect(errorOf({ url, fresh: 'true' })).toMatchObject({ code: 'INCOMPATIBLE_PARAMETERS', details: { params: ['fresh', 'cache'] } });
    // video_clock: no default in the schema (the engine's first clock is), videos only.
    expect(parseCaptureParams({ url, format: 'mp4' }).video_clock).toBeUndefined();
    expect(parseCaptureParams({ url, scenario: 'record', video_clock: 'live' })).toMatchObject({ format: 'mp4', video_clock: 'live' });
    expect(errorOf({ url, format: 'mp4', video_clock: 'virtual' })).toMatchObject({ code: 'INVALID_PARAMETER', details: { param: 'video_clock', allowed: 'frames, live' } });
    expect(errorOf({ url, video_clock: 'frames' })).toMatchObject({ code: 'INCOMPATIBLE_PARAMETERS', details: { params: ['video_clock', 'format'] } });
    expect(errorOf({ url, cache: 'true', async: 'true' })).toMatchObject({ code: 'INCOMPATIBLE_PARAMETERS', details: { params: ['cache', 'async'] } });
    expect(errorOf({ url, cache: 'true', cache_ttl: '59' })).toMatchObject({ code: 'INVALID_PARAMETER', details: { param: 'cache_ttl', allowed: 'integer 60..2592000' } });
    expect(parseCaptureParams({ url, cache: 'true', cache_ttl: '60', cache_key: 'v2', fresh: 'true' })).toMatchObject({ cache: true, cache_ttl: 60, cache_key: 'v2', fresh: true });
    expect(errorOf({ url, webhook_url: 'https://hooks.example/x' })).toMatchObject({ code: 'INCOMPATIBLE_PARAMETERS', details: { params: ['webhook_url', 'async'] } });
    expect(parseCaptureParams({ url, async: 'true', webhook_url: 'https://hooks.example/x' })).toMatchObject({ async: true, webhook_url: 'https://hooks.example/x' });
  });

  it('checks time zones and language tags, and the rules between the new parameters', () => {
    expect(parseCaptureParams({ url, timezone: 'Europe/Paris', locale: 'fr-FR' })).toMatchObject({ timezone: 'Europe/Paris', locale: 'fr-FR' });
    expect(errorOf({ url, timezone: 'Mars/Olympus' })).toMatchObject({ code: 'INVALID_PARAMETER', details: { param: 'timezone' } });
    expect(errorOf({ url, locale: 'not a tag' })).toMatchObject({ code: 'INVALID_PARAMETER', details: { param: 'locale' } });
    expect(errorOf({ url, device_scale_factor: '5' })).toMatchObject({ code: 'INVALID_PARAMETER', details: { param: 'device_scale_factor' } });
    expect(errorOf({ url, clip_x: 0, clip_y: 0, clip_width: 10 })).toMatchObject({ code: 'INVALID_PARAMETER', details: { param: 'clip_height' } });
    expect(errorOf({ url, selector: '#a', full_page: true })).toMatchObject({ code: 'INCOMPATIBLE_PARAMETERS', details: { params: ['selector', 'full_page'] } });
    expect(errorOf({ url, selector: '#a', format: 'mp4' })).toMatchObject({ code: 'INCOMPATIBLE_PARAMETERS', details: { params: ['selector', 'format'] } });
    expect(errorOf({ url, omit_background: true, format: 'jpg' })).toMatchObject({ code: 'INCOMPATIBLE_PARAMETERS', details: { params: ['omit_background', 'format'] } });
  });

  it('coerces query strings: integers, numbers and booleans (true/false/1/0)', () => {
    const params = parseCaptureParams({ url, viewport_width: '1280', full_page: '1', block_ads: 'true', block_cookies: '0', latitude: '48.85', longitude: '-2.5' });
    expect(params).toMatchObject({ viewport_width: 1280, full_page: true, block_ads: true, block_cookies: false, latitude: 48.85, longitude: -2.5 });
  });

  it('accepts JSON-typed values as they are', () => {
    expect(parseCaptureParams({ url, quality: 50, full_page: true })).toMatchObject({ quality: 50, full_page: true });
  });

  it.each([
    ['viewport_width', '99', 'integer 100..7680'],
    ['viewport_width', '7681', 'integer 100..7680'],
    ['viewport_height', '4321', 'integer 100..4320'],
    ['viewport_width', '1280.5', 'integer 100..7680'],
    ['viewport_width', 'abc', 'integer 100..7680'],
    ['quality', '0', 'integer 1..100'],
    ['quality', 101, 'integer 1..100'],
    ['format', 'PNG', 'png, jpg, webp, avif, pdf, mp4, webm, gif, markdown, html, text, links, metadata, aria, scrape'],
    ['format', 'bmp', 'png, jpg, webp, avif, pdf, mp4, webm, gif, markdown, html, text, links, metadata, aria, scrape'],
    ['full_page', 'yes', 'true, false'],
    ['full_page', 'TRUE', 'true, false'],
    ['wait_until', 'networkidle', 'load, domcontentloaded, networkidle0, networkidle2'],
    ['response_type', 'binary', 'image, json'],
    ['duration', '0', 'integer 1..1800'],
    ['duration', '1801', 'integer 1..1800'],
    ['delay', '-1', 'integer 0..60000'],
    ['scenario', 'video', 'static, scroll, record'],
  ])('refuses %s=%s with INVALID_PARAMETER naming the parameter', (param, value, allowed) => {
    const error = errorOf({ url, [param]: value });
    expect(error.code).toBe('INVALID_PARAMETER');
    expect(error.status).toBe(400);
    expect(error.details).toEqual({ param, allowed });
    expect(error.message).toContain(param);
  });

  it('reads parameters that went through it once as they are (a render link, a queued job)', () => {
    for (const raw of [{ url: 'https://example.com/' }, { url: 'https://example.com/', format: 'pdf' }, { url: 'https://example.com/', format: 'mp4' }]) {
      const once = parseCaptureParams(raw);
      expect(parseCaptureParams(once)).toEqual(once);
    }
  });

  it('refuses a missing url', () => {
    expect(errorOf({}).details).toMatchObject({ param: 'url' });
    expect(errorOf({ url: '' }).details).toMatchObject({ param: 'url' });
  });

  it('refuses out-of-range coordinates and a lone latitude or longitude', () => {
    expect(errorOf({ url, latitude: '91', longitude: '0' }).details).toMatchObject({ param: 'latitude' });
    expect(errorOf({ url, latitude: '0', longitude: '-181' }).details).toMatchObject({ param: 'longitude' });
    expect(errorOf({ url, latitude: '10' }).details).toMatchObject({ param: 'longitude' });
    expect(errorOf({ url, longitude: '10' }).details).toMatchObject({ param: 'latitude' });
  });

  it('implies scroll for a video format and mp4 for a video scenario', () => {
    expect(parseCaptureParams({ url, format: 'webm' })).toMatchObject({ format: 'webm', scenario: 'scroll' });
    expect(parseCaptureParams({ url, scenario: 'record' })).toMatchObject({ format: 'mp4', scenario: 'record' });
  });

  it.each([
    [{ format: 'png', scenario: 'scroll' }, ['format', 'scenario']],
    [{ format: 'jpg', scenario: 'record' }, ['format', 'scenario']],
    [{ format: 'mp4', scenario: 'static' }, ['format', 'scenario']],
    [{ format: 'mp4', full_page: 'true' }, ['full_page', 'format']],
    [{ scenario: 'scroll', full_page: true }, ['full_page', 'format']],
  ])('answers INCOMPATIBLE_PARAMETERS for %o', (extra, params) => {
    const error = errorOf({ url, ...extra });
    expect(error.code).toBe('INCOMPATIBLE_PARAMETERS');
    expect(error.details).toEqual({ params });
  });

  it('reads format=jpeg (any case) as jpg, and still refuses formats it does not make', () => {
    expect(parseCaptureParams({ url: 'https://example.com', format: 'jpeg' }).format).toBe('jpg');
    expect(parseCaptureParams({ url: 'https://example.com', format: 'JPEG' }).format).toBe('jpg');
    expect(() => parseCaptureParams({ url: 'https://example.com', format: 'bmp' })).toThrow(expect.objectContaining({ code: 'INVALID_PARAMETER', details: expect.objectContaining({ param: 'format' }) }));
  });

  it('ignores unknown parameters and prototype keys', () => {
    const raw = JSON.parse(`{"url":"${url}","__proto__":{"polluted":true},"constructor":1,"colour":"red"}`) as Record<string, unknown>;
    const params = parseCaptureParams(raw) as Record<string, unknown>;
    expect(params.colour).toBeUndefined();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses a parameter given twice', () => {
    expect(errorOf({ url, format: ['png', 'jpg'] }).message).toContain('more than once');
  });

  it('takes a cookie\'s sameSite in any case, and names the wrong part of a cookie with what it allows', () => {
    const cookies = parseCaptureParams({ url, cookies: [{ name: 'a', value: '1', sameSite: 'lax' }, { name: 'b', value: '2', sameSite: 'NONE' }] }).cookies;
    expect(cookies?.map((cookie) => cookie.sameSite)).toEqual(['Lax', 'None']);
    const wrong = errorOf({ url, cookies: [{ name: 'a', value: '1' }, { name: 'b', value: '2', sameSite: 'sometimes' }] });
    expect(wrong.details).toMatchObject({ param: 'cookies[1].sameSite', allowed: 'Strict, Lax, None' });
    expect(wrong.message).toBe('Invalid parameter \'cookies[1].sameSite\': expected Strict, Lax, None, got "sometimes"');
    expect(errorOf({ url, cookies: [{ value: '1' }] }).details.param).toBe('cookies[0]');
    expect(errorOf({ url, cookies: { name: 'a' } }).details.param).toBe('cookies');
  });

  it('takes actions in full or short form, as JSON or a JSON string, and names what a step lacks', () => {
    const long = [{ action: 'type', selector: '#q', text: 'hi' }, { action: 'wait', ms: 5 }, { action: 'scroll_to', y: 800 }, { action: 'press', key: 'Enter' }];
    const short = [{ type: { selector: '#q', text: 'hi' } }, { wait: 5 }, { scroll_to: 800 }, { press: 'Enter' }];
    expect(parseCaptureParams({ url, actions: short }).actions).toEqual(long);
    expect(parseCaptureParams({ url, actions: JSON.stringify(long) }).actions).toEqual(long);
    expect(parseCaptureParams({ url, actions: [{ click: '#go' }] }).actions).toEqual([{ action: 'click', selector: '#go' }]);
    expect(errorOf({ url, actions: [{ wait: 1 }, { action: 'select', selector: '#s' }] }).message).toMatch(/step 1 \(select\) needs option/);
    expect(errorOf({ url, actions: [{ action: 'scroll_to', selector: '#a', y: 1 }] }).message).toMatch(/selector or y, not both/);
    expect(errorOf({ url, actions: [{ action: 'click', selector: '#a', button: 'right' }] }).details.param).toBe('actions[0].button');
    expect(errorOf({ url, actions: '[{"click": ' }).details.param).toBe('actions');
  });

  it('takes hide_selectors as a string or a JSON array', () => {
    expect(parseCaptureParams({ url, hide_selectors: ['.a', '#b'] }).hide_selectors).toBe('.a,#b');
  });

  it('exports a JSON Schema with every parameter', () => {
    const schema = captureParamsJsonSchema() as { properties: Record<string, unknown>; oneOf: { required: string[] }[] };
    expect(Object.keys(schema.properties).sort()).toEqual([...PARAM_NAMES].sort());
    expect(schema.oneOf).toEqual([{ required: ['url'] }, { required: ['html'] }, { required: ['markdown'] }, { required: ['files'], not: { required: ['pdf_merge'] } }, { required: ['pdf_merge'] }]);
  });

  it('takes exactly one of url, html, markdown and files', () => {
    expect(parseCaptureParams({ html: '<p>x</p>' }).html).toBe('<p>x</p>');
    expect(parseCaptureParams({ files: [{ name: 'index.md', content: Buffer.from('# x') }] }).files).toEqual([{ name: 'index.md', content: Buffer.from('# x').toString('base64'), encoding: 'base64' }]);
    expect(() => parseCaptureParams({})).toThrow(expect.objectContaining({ code: 'INVALID_PARAMETER', details: expect.objectContaining({ param: 'url' }) }));
    expect(() => parseCaptureParams({ url: 'https://a.example', markdown: '# x' })).toThrow(expect.objectContaining({ code: 'INVALID_PARAMETER', details: expect.objectContaining({ param: 'markdown' }) }));
    expect(() => parseCaptureParams({ files: [{ name: 'a/../../x.html', content: '' }, { name: 'index.html', content: '' }] })).toThrow(expect.objectContaining({ details: expect.objectContaining({ param: 'files' }) }));
    expect(() => parseCaptureParams({ html: '<p>x</p>', markdown_template: '{{ content }}' })).toThrow(expect.objectContaining({ code: 'INCOMPATIBLE_PARAMETERS' }));
    expect(() => parseCaptureParams({ markdown: '# x', markdown_template: '<p>no placeholder</p>' })).toThrow(expect.objectContaining({ details: expect.objectContaining({ param: 'markdown_template' }) }));
  });
});
