import { copyFile, mkdir, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import sharp from 'sharp';
import { ROOT } from './docs-pages.js';
import { invoiceXml } from './invoice-xml.js';

/**
 * What the docs' examples take for granted, on loopback: a page standing in for the public web
 * (`https://example.com`, `example.org`, `*.example`) with every element the examples name, and the
 * files of a reader's working directory they upload or convert.
 */
const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Example Domain</title>
<meta name="description" content="The page the docs' examples capture">
<style>body { font: 18px sans-serif; margin: 0 } header, nav, main, section { padding: 16px 32px } header { background: #246 ; color: white }
#pricing { margin-top: 1400px; background: #eef } .result { display: none } .found .result { display: block }</style></head>
<body><header>Example header</header>
<nav><a href="/docs">Docs</a> <a href="/pricing">Pricing</a></nav>
<main><h1>Example Domain</h1><p>This domain is for use in documentation examples.</p>
<form id="search"><input id="q" name="q" aria-label="Search"> <button>Search</button></form>
<ul id="results"><li>Results</li><li class="result"><a href="/result">A result</a></li></ul>
<button id="more" type="button">More</button>
<h2>First heading</h2><p>Text.</p><h2>Second heading</h2><p>More text.</p>
<section id="pricing"><h2>Pricing</h2><p>Free.</p></section></main>
<script>document.getElementById('search').addEventListener('submit', (event) => { event.preventDefault(); document.body.classList.add('found'); });</script>
</body></html>`;

export interface StandInWeb {
  origin: string;
  /** The requests it answered, as `METHOD path`. */
  seen: string[];
  close(): Promise<void>;
}

/** Any path answers the page, `/missing` 404, a POST (a webhook delivery) 204. */
export async function startStandInWeb(): Promise<StandInWeb> {
  const seen: string[] = [];
  const server: Server = createServer((request, response) => {
    seen.push(`${request.method} ${request.url}`);
    request.resume();
    if (request.method === 'POST') return void response.writeHead(204).end();
    if (request.url?.startsWith('/missing')) return void response.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
    response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(PAGE);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { origin, seen, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/**
 * Rewrites what a block names of the outside world to the stand-ins: the service the README starts
 * on :3000, the public pages, and the caller's SOCKS5 proxy of the examples.
 */
export function standIn(code: string, world: { service: string; web: string; socksProxy: string }): string {
  return code
    .replaceAll('http://localhost:3000', world.service)
    .replaceAll('socks5://user:pass@proxy.example:1080', world.socksProxy)
    .replace(/https?:\/\/(?:[\w-]+\.)*example\.(?:com|org)\b|https?:\/\/[\w-]+\.example\b/g, world.web);
}

/** A reader's working directory: the files the examples name, the README they convert. */
export async function readerDirectory(dir: string, web: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'invoice.html'), '<!doctype html><title>Invoice 42</title><h1>Invoice 42</h1><p>Total: 42 EUR</p>');
  await writeFile(path.join(dir, 'notes.md'), '# Notes\n\n- [x] written\n- [ ] read\n\n| a | b |\n|---|---|\n| 1 | 2 |\n');
  await writeFile(path.join(dir, 'index.html'), '<!doctype html><link rel="stylesheet" href="css/style.css"><h1>Report</h1><img src="images/logo.png" alt="logo">');
  await writeFile(path.join(dir, 'style.css'), 'h1 { color: #246 }');
  await writeFile(path.join(dir, 'factur-x.xml'), invoiceXml('urn:cen.eu:en16931:2017'));
  await sharp({ create: { width: 64, height: 64, channels: 3, background: '#246' } }).png().toFile(path.join(dir, 'logo.png'));
  await writeFile(path.join(dir, 'shots.yml'), `- output: a.png\n  url: ${web}/\n- output: b.png\n  url: ${web}/pricing\n  width: 800\n  height: 600\n`);
  await copyFile(path.join(ROOT, 'README.md'), path.join(dir, 'README.md'));
}
