// The static benchmark's pages, generated in code (served by fixture-server.js):
//
//   /simple  a solid background and a heading (the cheapest possible page)
//   /heavy   a few hundred DOM blocks with text and inline SVG, about 5000 px tall
//   /images  a gallery of 12 photo-sized JPEGs (640x427, ~100-200 KB of noise each) from /photo/N.jpg
//
// Run directly (`node benchmarks/lib/fixture-pages.js`) to serve them on 127.0.0.1 until Ctrl-C
// (PORT=... for a fixed port).

import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { html, startFixtureServer } from './fixture-server.js';

const SIMPLE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Benchmark: simple page</title>
<style>
  html, body { margin: 0; height: 100%; }
  body { background: #1f5fa8; color: #fff; font-family: sans-serif;
         display: flex; align-items: center; justify-content: center; }
  h1 { font-size: 64px; margin: 0; }
</style>
</head>
<body><h1>Capture benchmark</h1></body>
</html>
`;

const WORDS = ('lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore ' +
  'et dolore magna aliqua enim ad minim veniam quis nostrud exercitation ullamco laboris nisi aliquip ex ea commodo')
  .split(' ');

// Deterministic pseudo-random numbers, so every run renders the same page.
function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const PHOTOS = 12;

/** A photo's weight without a photo: seeded noise, as a camera JPEG at quality 80. */
function photo(seed) {
  const noise = { type: 'gaussian', mean: 100 + seed * 8, sigma: 40 };
  return sharp({ create: { width: 640, height: 427, channels: 3, noise } }).jpeg({ quality: 80 }).toBuffer();
}

const IMAGES = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Benchmark: image gallery</title>
<style>
  body { margin: 0; font-family: sans-serif; background: #fafafa; }
  h1 { margin: 16px 24px; font-size: 28px; }
  main { display: grid; grid-template-columns: repeat(4, 1fr); gap: 8px; padding: 8px; }
  img { width: 100%; height: auto; display: block; }
</style>
</head>
<body><h1>Gallery</h1><main>${Array.from({ length: PHOTOS }, (_, i) => `<img src="/photo/${i}.jpg" width="640" height="427" alt="photo ${i}">`).join('')}</main></body>
</html>
`;

function heavyPage({ blocks = 360, columns = 4 } = {}) {
  const rand = rng(42);
  const text = (n) => Array.from({ length: n }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(' ');
  const hue = () => Math.floor(rand() * 360);
  const parts = [];
  for (let i = 0; i < blocks; i++) {
    const h = hue();
    const svg = `<svg width="48" height="48" viewBox="0 0 48 48" aria-hidden="true">` +
      `<circle cx="24" cy="24" r="${10 + Math.floor(rand() * 12)}" fill="hsl(${h} 70% 50%)"/>` +
      `<rect x="${Math.floor(rand() * 20)}" y="${Math.floor(rand() * 20)}" width="20" height="20" ` +
      `fill="hsl(${(h + 120) % 360} 60% 45%)" opacity="0.7"/>` +
      `<path d="M4 44 L24 ${4 + Math.floor(rand() * 20)} L44 44 Z" fill="none" stroke="#333" stroke-width="2"/></svg>`;
    parts.push(
      `<article class="card" style="border-top-color:hsl(${h} 65% 45%)">` +
      `${svg}<div><h3>Block ${i + 1}: ${text(3)}</h3><p>${text(18 + Math.floor(rand() * 10))}</p>` +
      `<ul><li>${text(4)}</li><li>${text(5)}</li></ul></div></article>`,
    );
  }
  // 360 blocks in 4 columns = 90 rows of 54 px (+ header/footer): about 5000 px tall at any
  // width >= 1024, because the height of each card is fixed.
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Benchmark: heavy page</title>
<style>
  body { margin: 0; font: 11px/1.3 sans-serif; color: #222; background: #f4f1ea; }
  header { height: 60px; background: #222; color: #fff; display: flex; align-items: center; padding: 0 24px; }
  header h1 { margin: 0; font-size: 24px; }
  main { display: grid; grid-template-columns: repeat(${columns}, 1fr); grid-auto-rows: 50px; gap: 4px; padding: 8px; }
  .card { display: flex; gap: 8px; overflow: hidden; background: #fff; border-top: 3px solid; padding: 0 6px;
          box-shadow: 0 1px 2px rgba(0,0,0,.15); border-radius: 4px; }
  .card svg { flex: none; margin-top: 1px; }
  .card h3 { margin: 2px 0 0; font-size: 12px; white-space: nowrap; }
  .card p { margin: 0; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
  .card ul { margin: 0; padding-left: 14px; display: flex; gap: 16px; }
  footer { height: 40px; background: #222; color: #ccc; padding: 10px 24px; box-sizing: border-box; }
</style>
</head>
<body>
<header><h1>Capture benchmark: heavy page (${blocks} blocks)</h1></header>
<main>
${parts.join('\n')}
</main>
<footer>end of page</footer>
</body>
</html>
`;
}

export const PAGES = {
  '/simple': html(SIMPLE),
  '/heavy': html(heavyPage()),
  '/images': html(IMAGES),
  ...Object.fromEntries(await Promise.all(Array.from({ length: PHOTOS }, async (_, i) => [`/photo/${i}.jpg`, { type: 'image/jpeg', body: await photo(i) }]))),
};

/** Serves PAGES; keep-alive connections idle for 1 s are closed. */
export const startPageServer = (options) => startFixtureServer(PAGES, { keepAliveTimeout: 1000, ...options });

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const fx = await startPageServer({ port: Number(process.env.PORT || 0) });
  for (const path of Object.keys(PAGES)) console.log(fx.url(path));
  process.on('SIGINT', () => fx.close().then(() => process.exit(0)));
}
