import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { notFound } from './http-errors.js';
import type { HttpResponse } from './http-types.js';
import type { RouteTable } from './routes.js';

/** The playground's script and style, built by `npm run build` (src/playground) into dist/playground. */
const ASSETS = { 'playground.js': 'text/javascript; charset=utf-8', 'playground.css': 'text/css; charset=utf-8' } as const;
type AssetName = keyof typeof ASSETS;

interface Asset {
  body: Buffer;
  etag: string;
}

/**
 * The page runs only its own script and style and talks only to this service; what it previews are
 * `blob:` URLs of the answers it fetched (and may read back). Nobody may frame it (it holds a key).
 */
const PAGE_HEADERS = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self' blob:; img-src 'self' blob: data:; media-src 'self' blob:; frame-src 'self' blob:; object-src 'self' blob:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

/**
 * A lens on the accent colour, inline: the page asks for no /favicon.ico, which a service mounted
 * under a path does not own (img-src allows data:).
 */
const ICON = `data:image/svg+xml,${encodeURIComponent(
  "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 32 32'><rect width='32' height='32' rx='7' fill='#1f5fd6'/><rect x='9' y='5' width='9' height='5' rx='1.5' fill='#fff'/><circle cx='16' cy='18' r='8' fill='none' stroke='#fff' stroke-width='3'/></svg>",
)}`;

let loaded: Promise<Record<AssetName, Asset> | undefined> | undefined;

/**
 * Read once per process. The package finds its own files by its name (a self-reference through
 * `exports`), which holds from the sources, from dist and from node_modules alike.
 */
function assets(): Promise<Record<AssetName, Asset> | undefined> {
  loaded ??= (async () => {
    const require = createRequire(import.meta.url);
    try {
      const entries = await Promise.all(
        (Object.keys(ASSETS) as AssetName[]).map(async (name) => {
          const body = await readFile(require.resolve(`capture-engine/playground/${name}`));
          return [name, { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 16)}"` }] as const;
        }),
      );
      return Object.fromEntries(entries) as Record<AssetName, Asset>;
    } catch {
      return undefined;
    }
  })();
  return loaded;
}

/** `GET` of the playground's page or one of its assets (`If-None-Match` answered with 304). */
export async function servePlayground(routes: RouteTable, pathname: string, headOnly: boolean, ifNoneMatch: string | undefined): Promise<HttpResponse> {
  const playground = routes.playground;
  const files = await assets();
  if (!playground || !files) throw notFound('The playground is not built: run `npm run build`');
  // `{basePath}/playground/` is the page too: the folder of its assets, as a browser shows it.
  if (playground.pages.includes(pathname) || pathname === playground.assetsPrefix) {
    const body = pageHtml(routes, playground.assetsPrefix, files);
    return { status: 200, headers: { ...PAGE_HEADERS, 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-cache' }, body: headOnly ? '' : body };
  }
  const name = pathname.slice(playground.assetsPrefix.length);
  // Own names only: `constructor`, `__proto__` or `toString` are in every object, and no asset.
  if (!Object.hasOwn(ASSETS, name)) throw notFound(`No route ${pathname}`);
  const asset = files[name as AssetName];
  // The page names each asset with its digest (`?v=`), so a copy may be kept for as long as it likes.
  const headers = { 'Content-Type': ASSETS[name as AssetName], 'Cache-Control': 'public, max-age=31536000, immutable', ETag: asset.etag, 'X-Content-Type-Options': 'nosniff' };
  if (ifNoneMatch === asset.etag) return { status: 304, headers };
  return { status: 200, headers, body: headOnly ? '' : asset.body };
}

function pageHtml(routes: RouteTable, assetsPrefix: string, files: Record<AssetName, Asset>): string {
  const version = (name: AssetName): string => encodeURIComponent(files[name].etag.slice(1, -1));
  const attribute = (text: string): string => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>capture-engine playground</title>
<link rel="icon" href="${ICON}">
<link rel="stylesheet" href="${attribute(`${assetsPrefix}playground.css?v=${version('playground.css')}`)}">
<script type="module" src="${attribute(`${assetsPrefix}playground.js?v=${version('playground.js')}`)}"></script>
</head>
<body data-base-path="${attribute(routes.basePath)}" data-openapi="${attribute(routes.openApi)}">
<header class="top">
  <h1>capture-engine <span>playground</span></h1>
  <nav aria-label="Reference"><a href="${attribute(routes.openApi)}">OpenAPI</a></nav>
</header>
<main>
  <form id="request" class="panel" novalidate aria-labelledby="request-title">
    <h2 id="request-title">Request</h2>
    <div class="field key">
      <label for="api-key">API key</label>
      <input id="api-key" type="password" autocomplete="off" spellcheck="false" aria-describedby="api-key-hint api-key-error">
      <p id="api-key-hint" class="hint">Kept in this tab's session only and sent as <code>X-API-Key</code>, never in a URL.</p>
      <p id="api-key-error" class="error" hidden></p>
    </div>
    <div id="fields"><p class="loading">Loading the parameters…</p></div>
    <div class="actions"><button type="submit" id="submit">Capture</button></div>
  </form>
  <section class="panel" id="result" aria-labelledby="result-title">
    <h2 id="result-title">Result</h2>
    <p id="status" role="status" aria-live="polite">Fill in a URL and press Capture.</p>
    <div id="preview"></div>
    <h3>Response headers</h3>
    <dl id="response-headers"></dl>
  </section>
  <section class="panel" id="code" aria-labelledby="code-title">
    <h2 id="code-title">The same request</h2>
    <div id="snippets"></div>
    <details id="link-credentials">
      <summary>Render link signing</summary>
      <p class="hint">Empty: derived from the API key, as for keys of <code>CAPTURE_API_KEYS</code> (a service with <code>CAPTURE_LINK_ID_SECRET</code> prints their ids at start: give the id alone). A key made with <code>capture-engine keys create</code> has its own id and signing secret; both stay in this tab's session.</p>
      <div class="field"><label for="link-key">Key id</label><input id="link-key" autocomplete="off" spellcheck="false"></div>
      <div class="field"><label for="signing-secret">Signing secret</label><input id="signing-secret" type="password" autocomplete="off" spellcheck="false"></div>
    </details>
  </section>
</main>
<noscript><p>The playground needs JavaScript. The interface is described at <a href="${attribute(routes.openApi)}">${attribute(routes.openApi)}</a>.</p></noscript>
</body>
</html>
`;
}
