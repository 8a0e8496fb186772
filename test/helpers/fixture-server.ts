import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { startPageServer } from '../../fixtures/page-server.js';

/**
 * Pages for browser tests, on 127.0.0.1:0: solid colours and known geometry, so a capture can be
 * checked pixel by pixel. Every request is counted by path.
 */
export interface FixtureServer {
  readonly origin: string;
  url(path: string): string;
  hits(path: string): number;
  close(): Promise<void>;
}

export type Handler = (req: IncomingMessage, res: ServerResponse, query: URLSearchParams) => void;

/** Writes a minimal HTML page with no margins and no caching. */
export const html = (res: ServerResponse, body: string, status = 200): void => {
  res.writeHead(status, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' });
  res.end(`<!doctype html><html><head><meta charset="utf-8"><style>html,body{margin:0;padding:0}</style></head>${body}</html>`);
};

/** Bands of 1000 px in these colours, top to bottom. */
export const BAND_COLOURS = ['#ff0000', '#00ff00', '#0000ff', '#ffff00', '#ff00ff', '#00ffff', '#ffffff', '#000000'];
export const LAZY_IMAGES = 24;

const routes: Record<string, Handler> = {
  '/print-media': (_req, res) => html(res, '<style>body{background:#ff0000;height:100vh}@media print{body{background:#0000ff}}</style><body></body>'),
  '/solid': (_req, res, q) => html(res, `<body style="background:${q.get('color') ?? '#ff0000'};height:100vh"></body>`),
  '/bands': (_req, res, q) => {
    const count = Number(q.get('count') ?? BAND_COLOURS.length);
    const band = Number(q.get('band') ?? 1000);
    // `cv=1`: sections that skip painting off screen and claim 200 px until painted, as Node's docs do.
    const skip = q.get('cv') === '1' ? 'content-visibility:auto;contain-intrinsic-size:1px 200px;' : '';
    const bands = Array.from({ length: count }, (_, i) => `<section style="${skip}"><div style="height:${band}px;background:${BAND_COLOURS[i % BAND_COLOURS.length]}"></div></section>`);
    html(res, `<body>${bands.join('')}</body>`);
  },
  '/fixed-and-sticky': (_req, res) => {
    // A sticky blue header, a red bar fixed near the top and a yellow one fixed to the bottom of the viewport.
    html(res, `<body style="background:#00ff00"><header style="position:sticky;top:0;height:50px;background:#0000ff"></header>
      <nav style="position:fixed;top:100px;left:0;width:100px;height:200px;background:#ff0000"></nav>
      <aside style="position:fixed;bottom:0;left:0;width:100px;height:100px;background:#ffff00"></aside>
      <div style="height:20000px"></div></body>`);
  },
  '/grow-on-scroll': (_req, res, q) => {
    // The first scroll starts a slow request; when it answers, the page grows by a blue 1000 px band.
    html(res, `<body style="background:#ff0000"><div style="height:1500px;background:#00ff00"></div><script>
      let started = false;
      addEventListener('scroll', () => {
        if (started) return;
        started = true;
        fetch('/slow-ok?ms=${Number(q.get('ms') ?? 3500)}').then(() => {
          const more = document.createElement('div');
          more.style.cssText = 'height:1000px;background:#0000ff';
          document.body.append(more);
        });
      });
    </script></body>`);
  },
  '/lazy': (_req, res) => {
    // Half native loading=lazy, half IntersectionObserver-driven data-src, as real sites mix them.
    const images = Array.from({ length: LAZY_IMAGES }, (_, i) =>
      i % 2 === 0
        ? `<img loading="lazy" src="/pixel?i=${i}" width="200" height="400" style="display:block;margin-bottom:400px">`
        : `<img data-src="/pixel?i=${i}" width="200" height="400" style="display:block;margin-bottom:400px;background:#fff">`,
    );
    html(res, `<body>${images.join('')}<script>
      const io = new IntersectionObserver((entries) => entries.forEach((e) => {
        if (e.isIntersecting && e.target.dataset.src) { e.target.src = e.target.dataset.src; delete e.target.dataset.src; io.unobserve(e.target); }
      }));
      document.querySelectorAll('img[data-src]').forEach((img) => io.observe(img));
    </script></body>`);
  },
  '/pixel': (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'image/svg+xml', 'Cache-Control': 'no-store' });
    res.end('<svg xmlns="http://www.w3.org/2000/svg" width="200" height="400"><rect width="200" height="400" fill="#00ff00"/></svg>');
  },
  '/late-resource': (_req, res, q) => {
    // The body turns green only when a request that takes `ms` finishes: networkidle must wait for it.
    const ms = Number(q.get('ms') ?? 800);
    html(res, `<body style="background:#ff0000;height:100vh"><script>
      setTimeout(() => fetch('/slow-ok?ms=${ms}').then(() => { document.body.style.background = '#00ff00'; }), 50);
    </script></body>`);
  },
  '/slow-ok': (_req, res, q) => {
    setTimeout(() => res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok'), Number(q.get('ms') ?? 800));
  },
  '/never': () => undefined,
  '/later-colour': (_req, res, q) => {
    html(res, `<body style="background:#ff0000;height:100vh"><script>setTimeout(() => { document.body.style.background = '#0000ff'; }, ${Number(q.get('ms') ?? 300)});</script></body>`);
  },
  '/geo': (_req, res) => {
    html(res, `<body style="background:#ff0000;height:100vh"><script>
      navigator.geolocation.getCurrentPosition(
        (p) => { document.body.style.background = Math.abs(p.coords.latitude - 48.8584) < 0.01 && Math.abs(p.coords.longitude - 2.2945) < 0.01 ? '#00ff00' : '#0000ff'; document.title = 'done'; },
        () => { document.body.style.background = '#000000'; document.title = 'done'; });
    </script></body>`);
  },
  '/hide': (_req, res) => {
    html(res, `<body style="background:#00ff00;height:100vh"><div id="banner" class="promo" style="position:fixed;top:0;left:0;width:100%;height:200px;background:#ff0000"></div><div class="late-box"></div>
      <script>setTimeout(() => { const d = document.createElement('div'); d.className = 'late'; d.style.cssText = 'position:fixed;bottom:0;left:0;width:100%;height:100px;background:#0000ff'; document.body.append(d); }, 50);</script></body>`);
  },
  '/flow': (_req, res) => {
    // A red block in the flow above a blue one, on green: hiding the red one moves the blue one up, or not.
    html(res, '<body style="margin:0;background:#00ff00;height:100vh"><div id="top" style="height:100px;background:#ff0000"></div><div style="height:100px;background:#0000ff"></div></body>');
  },
  '/webfont': (_req, res) => {
    // Black text in a web font that arrives late; until it does, Chromium draws nothing (block period).
    html(res, `<style>@font-face { font-family: Late; src: url(/late-font.ttf?ms=800); }</style>
      <body style="margin:0;background:#fff"><div style="font:120px/150px Late;color:#000">Wg</div></body>`);
  },
  '/late-font.ttf': (_req, res, q) => {
    const font = readFileSync(execFileSync('fc-match', ['-f', '%{file}', 'sans:bold'], { encoding: 'utf8' }));
    setTimeout(() => res.writeHead(200, { 'Content-Type': 'font/ttf', 'Content-Length': font.length }).end(font), Number(q.get('ms') ?? 800));
  },
  '/media': (_req, res) => html(res, '<style>body{background:#ff0000;height:100vh} @media (prefers-color-scheme: dark){body{background:#00ff00}}</style><body></body>'),
  '/motion': (_req, res) =>
    // A 20 s fade from red to blue; with reduced motion the page asks for green instead.
    html(res, `<style>@keyframes fade { from { background: #ff0000 } to { background: #0000ff } }
      body { height: 100vh; animation: fade 20s linear forwards } @media (prefers-reduced-motion: reduce) { body { background: #00ff00; animation: none } }</style><body></body>`),
  // Green, animated for ever from red to blue starting 1 s in, wherever the animation is now.
  '/spinning': (_req, res) =>
    html(res, '<style>@keyframes spin { from { background: #ff0000 } to { background: #0000ff } } body { height: 100vh; background: #00ff00; animation: spin 2s linear -1s infinite }</style><body></body>'),
  '/slow-fade': (_req, res) =>
    html(res, '<style>@keyframes fade { from { background: #ff0000 } to { background: #0000ff } } body { height: 100vh; animation: fade 20s linear forwards }</style><body></body>'),
  '/env': (req, res, q) => {
    // Green when what the page sees matches `expect` for `kind` (ua, lang, tz, accept-language).
    const seen = { 'accept-language': String(req.headers['accept-language'] ?? '') };
    html(res, `<body style="background:#ff0000;height:100vh"><script>
      const seen = { ua: navigator.userAgent, lang: navigator.language, tz: Intl.DateTimeFormat().resolvedOptions().timeZone, ...${JSON.stringify(seen)} };
      if (seen[${JSON.stringify(q.get('kind'))}].startsWith(${JSON.stringify(q.get('expect') ?? '')})) document.body.style.background = '#00ff00';
    </script></body>`);
  },
  '/late-element': (_req, res) =>
    html(res, `<body style="background:#ff0000;height:100vh"><script>setTimeout(() => {
      const late = document.createElement('div'); late.id = 'late'; late.textContent = 'here'; document.body.append(late); document.body.style.background = '#00ff00';
    }, 400);</script></body>`),
  '/click': (_req, res) =>
    html(res, '<body style="background:#ff0000;height:100vh"><button id="go" style="width:100px;height:40px" onclick="document.body.style.background=\'#00ff00\'">go</button></body>'),
  '/box': (_req, res) =>
    html(res, '<body style="background:#ffffff;height:2000px"><div id="box" style="position:absolute;left:50px;top:1200px;width:150px;height:80px;background:#0000ff"></div><div id="dot" style="position:absolute;left:0;top:0;width:10px;height:10px;background:#ff0000"></div></body>'),
  '/meta': (_req, res) =>
    html(res, '<title>Metadata page</title><meta name="description" content="A page about itself"><meta property="og:image" content="https://img.example/og.png"><body>meta</body>'),
  '/status': (_req, res, q) => html(res, '<body style="background:#0000ff;height:100vh">error page</body>', Number(q.get('code') ?? 404)),
  '/redirect': (_req, res, q) => {
    res.writeHead(302, { Location: q.get('to') ?? '/solid' }).end();
  },
};

export async function startFixtureServer(extra: Record<string, Handler> = {}): Promise<FixtureServer> {
  const all = { ...routes, ...extra };
  const server = await startPageServer((req, res, url) => {
    const handler = all[url.pathname];
    if (handler) handler(req, res, url.searchParams);
    else html(res, '<body>not found</body>', 404);
  });
  return { ...server, url: (path) => `${server.origin}${path}` };
}
