import type { ServerResponse } from 'node:http';
import type { Handler } from '../helpers/fixture-server.js';

/**
 * A page per bot manager, written from what each vendor documents serving (the sources are those
 * of plugins/bot-challenge/signatures.ts), and pages that must not count as walls. Nothing here
 * loads anything from outside the fixture server.
 */
const page = (res: ServerResponse, status: number, headers: Record<string, string>, head: string, body: string): void => {
  res.writeHead(status, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store', ...headers });
  res.end(`<!doctype html><html><head><meta charset="utf-8">${head}</head><body>${body}</body></html>`);
};

const GREEN_PAGE = '<style>html,body{margin:0;height:100%;background:#00ff00}</style>';
const ARTICLE = '<p>' + 'An ordinary article paragraph with enough words to read for a while. '.repeat(12) + '</p>';

/** Each vendor's page and the vendor it must be recognised as. */
export const VENDOR_PAGES: Record<string, { vendor: string; handler: Handler }> = {
  '/wall/cloudflare': {
    vendor: 'cloudflare',
    // Cloudflare's WAF block page (error-page type waf_block, 403).
    handler: (_req, res) =>
      page(
        res,
        403,
        { Server: 'cloudflare', 'CF-RAY': '8c1e2f3a4b5c6d7e-AMS' },
        '<title>Attention Required! | Cloudflare</title>',
        '<div id="cf-wrapper"><div id="cf-error-details"><h1>Sorry, you have been blocked</h1><h2>You are unable to access example.com</h2><p>Cloudflare Ray ID: <strong>8c1e2f3a4b5c6d7e</strong></p></div></div>',
      ),
  },
  '/wall/akamai': {
    vendor: 'akamai',
    handler: (req, res) =>
      page(
        res,
        403,
        { Server: 'AkamaiGHost', 'Mime-Version': '1.0' },
        '<title>Access Denied</title>',
        `<h1>Access Denied</h1>You don't have permission to access "http&#58;&#47;&#47;${req.headers.host ?? ''}&#47;wall&#47;akamai" on this server.<p>Reference&#32;&#35;18&#46;c6a50517&#46;1514639126&#46;176b29a</p><p>https&#58;&#47;&#47;errors&#46;edgesuite&#46;net&#47;18&#46;c6a50517&#46;1514639126&#46;176b29a</p>`,
      ),
  },
  '/wall/datadome': {
    vendor: 'datadome',
    // A blocked hit: 403 with the X-DataDome header, the page the Protection API returned.
    handler: (_req, res) =>
      page(
        res,
        403,
        { 'X-DataDome': 'protected', 'X-DataDome-CID': 'AHrlqAAAAAMA' },
        '<title>example.com</title><style>html,body{margin:0;height:100%}</style>',
        `<script data-cfasync="false">var dd={'rt':'c','cid':'AHrlqAAAAAMA','hsh':'789361B674144528D0B7EE76B35826','t':'fe','s':17434,'e':'a1b2','host':'geo.captcha-delivery.com'}</script><p>Please enable JS and disable any ad blocker</p>`,
      ),
  },
  '/wall/perimeterx': {
    vendor: 'perimeterx',
    // HUMAN's Block Page Captcha: the press-and-hold challenge in #px-captcha.
    handler: (_req, res) =>
      page(
        res,
        403,
        {},
        '<title>Access to this page has been denied</title>',
        `<div class="px-captcha-container"><h1>Before we continue...</h1><p>Press &amp; Hold to confirm you are a human (and not a bot).</p><div id="px-captcha" style="width:300px;height:60px"></div><p>Reference ID 1f2e3d4c-0000-11ee-9f6b-6d4f4b6a4c41</p></div><script>window._pxAppId = 'PXa1b2c3d4';</script>`,
      ),
  },
  '/wall/imperva': {
    vendor: 'imperva',
    // Imperva's block answer: a page framing the incident page served from /_Incapsula_Resource.
    handler: (_req, res) =>
      page(
        res,
        200,
        { 'X-Iinfo': '12-34567890-0 0NNN RT(1700000000000 0) q(0 -1 -1 -1) r(0 -1)', 'X-CDN': 'Imperva' },
        '<meta name="robots" content="noindex,nofollow">',
        '<iframe id="main-iframe" src="/_Incapsula_Resource?CWUDNSAI=9&amp;xinfo=12-34567890-0&amp;incident_id=123000450012345678-123456789012345678" frameborder="0" width="100%" height="100%">Request unsuccessful. Incapsula incident ID: 123000450012345678-123456789012345678</iframe>',
      ),
  },
  '/wall/aws-waf': {
    vendor: 'aws-waf',
    // The CAPTCHA action's answer: 405 with x-amzn-waf-action: captcha and the puzzle interstitial.
    handler: (_req, res) =>
      page(res, 405, { 'x-amzn-waf-action': 'captcha' }, '<title>Human Verification</title>', '<div id="captcha-container"></div><noscript>JavaScript is disabled</noscript>'),
  },
  '/wall/kasada': {
    vendor: 'kasada',
    handler: (_req, res) => page(res, 429, { 'x-kpsdk-ct': '0Ab1Cd2Ef3' }, '', '<script src="/149e9513-01fa-4fb0-aad4-566afd725d1b/2d206a39-8ed7-437e-a3be-862e0f06eea3/ips.js?tkrm_alpekz_s1.3=0Ab1"></script>'),
  },
  '/wall/hcaptcha': {
    vendor: 'hcaptcha',
    // A page that is nothing but the widget.
    handler: (_req, res) => page(res, 200, {}, '<title>Security check</title>', '<p>Please complete the security check to continue.</p><form><div class="h-captcha" data-sitekey="10000000-ffff-ffff-ffff-000000000001" style="width:303px;height:78px"></div></form>'),
  },
  '/wall/turnstile': {
    vendor: 'turnstile',
    // An article under a fixed layer holding the widget, over the whole viewport.
    handler: (_req, res) =>
      page(
        res,
        200,
        {},
        '<title>Article</title>',
        `<h1>Article</h1>${ARTICLE}<div style="position:fixed;inset:0;background:#fff"><p>Verify you are human</p><div class="cf-turnstile" data-sitekey="1x00000000000000000000AA" style="width:300px;height:65px"></div></div>`,
      ),
  },
  '/wall/recaptcha': {
    vendor: 'recaptcha',
    handler: (_req, res) => page(res, 200, {}, '<title>Verify</title>', '<h1>One more step</h1><div class="g-recaptcha" data-sitekey="6LeIxAcTAAAAAJcZVRqyHh71UMIEGNQ_MXjiZKhI" style="width:304px;height:78px"></div>'),
  },
};

/** Pages no capture may take for a wall. */
export const ORDINARY_PAGES: Record<string, Handler> = {
  // A sign-up form with a small reCAPTCHA among its fields.
  '/ordinary/signup': (_req, res) =>
    page(
      res,
      200,
      {},
      '<title>Create your account</title>',
      `<h1>Create your account</h1><p>Join to follow the projects you care about.</p><form><label>Email <input type="email" name="email"></label><label>Password <input type="password" name="password"></label><div class="g-recaptcha" data-sitekey="6LeIxAcTAAAAAJcZVRqyHh71UMIEGNQ_MXjiZKhI" style="width:304px;height:78px"></div><button>Sign up</button></form>${ARTICLE}`,
    ),
  // A page that says "Access denied" in its text, as an ordinary 200.
  '/ordinary/access-denied-article': (_req, res) => page(res, 200, {}, '<title>Access denied: a history</title>', `<h1>Access denied</h1>${ARTICLE}`),
};

/**
 * Cloudflare's JavaScript challenge that clears itself: 403 with cf-mitigated: challenge until
 * its script has set the clearance cookie and reloaded; then the real page, all green.
 */
export const CLEARING_CHALLENGE: Record<string, Handler> = {
  '/clearing/page': (req, res) => {
    if ((req.headers.cookie ?? '').includes('cf_clearance=')) return page(res, 200, {}, '<title>The real page</title>', GREEN_PAGE);
    page(res, 403, { 'cf-mitigated': 'challenge', Server: 'cloudflare' }, '<title>Just a moment...</title>', '<p>Checking your browser</p><script src="/cdn-cgi/challenge-platform/h/b/orchestrate/chl_page/v1"></script>');
  },
  '/cdn-cgi/challenge-platform/h/b/orchestrate/chl_page/v1': (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/javascript', 'Cache-Control': 'no-store' });
    res.end("setTimeout(() => { document.cookie = 'cf_clearance=ok; path=/'; location.reload(); }, 300);");
  },
};
