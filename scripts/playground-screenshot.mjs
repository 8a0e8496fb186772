// The README's picture of the playground, taken by the engine itself: the built service on a free
// port, a demo page beside it, and one capture whose actions type a key and a URL into the
// playground, press Capture and wait for the preview. `npm run build` first; writes docs/playground.png.
import { spawn } from 'node:child_process';
import { writeFile, mkdir } from 'node:fs/promises';
import { createServer } from 'node:http';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { createCaptureEngine, silentLogger } from '../dist/src/index.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const KEY = 'ce_readme_demo_key_0123456789abcd';

const DEMO_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Acme analytics</title><style>
body{margin:0;font-family:'DejaVu Sans',sans-serif;color:#10213a;background:#f4f7fb}
header{display:flex;justify-content:space-between;align-items:center;padding:28px 64px;background:#10213a;color:#fff}
header b{font-size:26px} nav span{margin-left:28px;opacity:.8}
.hero{padding:72px 64px;display:grid;grid-template-columns:1.1fr 1fr;gap:48px;align-items:center}
h1{font-size:54px;margin:0 0 20px;line-height:1.1} p{font-size:21px;line-height:1.5;color:#3b4b63}
.cta{display:inline-block;margin-top:18px;padding:16px 30px;border-radius:10px;background:#ff6a3d;color:#fff;font-weight:700;font-size:20px}
.chart{height:320px;border-radius:16px;background:#fff;box-shadow:0 10px 30px #10213a22;display:flex;align-items:flex-end;gap:18px;padding:28px}
.chart i{flex:1;border-radius:8px 8px 0 0;background:linear-gradient(#3d7dff,#6fd3ff)}
</style></head><body><header><b>Acme analytics</b><nav><span>Product</span><span>Pricing</span><span>Docs</span></nav></header>
<section class="hero"><div><h1>Know what your visitors see.</h1><p>Dashboards that update as fast as your site does, for teams of every size.</p><span class="cta">Start free</span></div>
<div class="chart"><i style="height:35%"></i><i style="height:55%"></i><i style="height:45%"></i><i style="height:70%"></i><i style="height:62%"></i><i style="height:88%"></i><i style="height:95%"></i></div></section></body></html>`;

async function listening(server) {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return server.address().port;
}

async function freePort() {
  const server = createServer();
  const port = await listening(server);
  server.close();
  return port;
}

const demo = createServer((_request, response) => response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(DEMO_PAGE));
const demoPort = await listening(demo);
const port = await freePort();
const service = spawn(process.execPath, ['dist/src/cli.js', 'serve', '--port', String(port), '--host', '127.0.0.1'], {
  cwd: root,
  env: { ...process.env, CAPTURE_API_KEYS: `${KEY}:PRO`, CAPTURE_ALLOW_ADDRESSES: `127.0.0.1:${demoPort}` },
  stdio: ['ignore', 'ignore', 'inherit'],
});
const origin = `http://127.0.0.1:${port}`;
const engine = await createCaptureEngine({ allowPrivateNetworks: true, log: silentLogger, concurrency: 1 });
try {
  for (let i = 0; i < 100 && !(await fetch(`${origin}/healthz`).then((r) => r.ok, () => false)); i++) await new Promise((resolve) => setTimeout(resolve, 200));
  const shot = await engine.capture({
    url: `${origin}/`,
    viewport_width: 1440,
    viewport_height: 960,
    wait_for_selector: '#param-url',
    actions: [
      { action: 'type', selector: '#api-key', text: KEY },
      { action: 'type', selector: '#param-url', text: `http://127.0.0.1:${demoPort}/` },
      { action: 'type', selector: '#param-viewport_width', text: '1280' },
      { action: 'type', selector: '#param-viewport_height', text: '720' },
      { action: 'select', selector: '#param-format', option: 'webp' },
      { action: 'click', selector: '#submit' },
      { action: 'wait_for', selector: '#preview img' },
      // The status line and the headers are written once the image has decoded.
      { action: 'wait', ms: 300 },
    ],
  });
  await mkdir(`${root}/docs`, { recursive: true });
  await writeFile(`${root}/docs/playground.png`, shot.data);
  console.log(`docs/playground.png: ${shot.data.length} bytes`);
} finally {
  await engine.close();
  service.kill('SIGTERM');
  demo.close();
}
