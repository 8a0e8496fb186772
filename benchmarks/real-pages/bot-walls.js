#!/usr/bin/env node
// Bot-wall false positives (issue 56): every page of the real-pages corpus that is unpacked here
// (each HTML file of the Debian documentation packages in real-pages-list.js, not just the ten the
// real-pages benchmark measures) and every HTML page under fixtures/ (the test pages), captured
// once by the engine with its defaults (on_bot_challenge=reject) as a 1280x800 PNG. A page the
// detector takes for a challenge or block page answers 422 CAPTURE_REJECTED, reason bot_challenge:
// the count of those is the number of false positives, since none of these pages is a wall.
//
//   npm run build                                     # at the repository root: the engine is loaded from dist/
//   node benchmarks/real-pages/bot-walls.js           # (under the browser lock on a shared machine)
//
// Packages not unpacked (scripts/fetch-real-pages.sh) are listed and left out. Two captures run at
// once, each with a 15 s budget; other failures (a hostile fixture that never loads) are listed
// apart, as they say nothing about the detector. The report goes to stdout, progress to stderr.

import fs from 'node:fs';
import path from 'node:path';
import { serveDirectory, startPageServer } from '../../fixtures/page-server.js';
import { loadEngine, missing, ROOT } from '../lib/dist.js';
import { Leftovers } from '../lib/leftovers.js';
import { engineVersion } from '../lib/package-version.js';
import { cleanupOnSignal, once, startWatchdog } from '../lib/shutdown.js';
import { ARTIFACTS, PACKAGES } from './real-pages-list.js';

const log = (...a) => console.error('[bot-walls]', ...a);
if (missing()) {
  log(missing());
  process.exit(1);
}

/** Every .html file under `dir`, as paths relative to it. */
const htmlFiles = (dir) => fs.readdirSync(dir, { recursive: true }).filter((file) => file.endsWith('.html')).sort();

const corpora = [];
const absent = [];
for (const [pkg, htmlDir] of Object.entries(PACKAGES)) {
  const root = path.join(ARTIFACTS, pkg, htmlDir);
  if (fs.existsSync(root)) corpora.push({ name: pkg, root });
  else absent.push(pkg);
}
corpora.push({ name: 'fixtures', root: path.join(ROOT, 'fixtures') });

const leftovers = new Leftovers();
const servers = [];
let engine;
const cleanup = once(async () => {
  leftovers.remember([process.pid]);
  await Promise.allSettled([engine?.close(), ...servers.map((server) => server.close())]);
  const killed = await leftovers.end({ waitMs: 5000, pollMs: 100 });
  if (killed.length) log(`ended ${killed.length} leftover process(es): ${killed.join(' ')}`);
});
cleanupOnSignal(() => cleanup());
startWatchdog(20 * 60_000, () => cleanup());

async function main() {
  const started = performance.now();
  const pages = [];
  for (const { name, root } of corpora) {
    const server = await startPageServer(serveDirectory(root));
    servers.push(server);
    for (const file of htmlFiles(root)) pages.push({ corpus: name, file, url: server.url(file) });
  }
  log(`${pages.length} page(s)${absent.length ? `; not unpacked: ${absent.join(', ')}` : ''}`);
  const { createCaptureEngine, silentLogger } = await loadEngine();
  engine = await createCaptureEngine({ allowPrivateNetworks: true, log: silentLogger, concurrency: 2 });
  const outcomes = [];
  const queue = [...pages];
  const worker = async () => {
    for (let page = queue.shift(); page; page = queue.shift()) {
      try {
        await (await engine.capture({ url: page.url, viewport_width: 1280, viewport_height: 800, timeout: 15_000 })).dispose();
        outcomes.push({ ...page, outcome: 'captured' });
      } catch (error) {
        const wall = error.details?.reason === 'bot_challenge';
        outcomes.push({ ...page, outcome: wall ? 'bot_challenge' : 'failed', why: wall ? `${error.details.vendor}: ${error.details.items.join(', ')}` : `${error.code ?? error.name}: ${error.message.split('\n')[0]}` });
      }
      leftovers.remember([process.pid]);
      if (outcomes.length % 10 === 0) log(`${outcomes.length}/${pages.length}`);
    }
  };
  await Promise.all([worker(), worker()]);
  const seconds = (performance.now() - started) / 1000;
  console.log(`## Bot-wall false positives: ${pages.length} pages captured with the defaults (on_bot_challenge=reject)\n`);
  console.log(`capture-engine ${engineVersion()} (dist); ${seconds.toFixed(0)} s in all${absent.length ? `; real-pages packages not unpacked here, left out: ${absent.join(', ')}` : ''}\n`);
  console.log('| corpus | pages | captured | bot_challenge (false positives) | other failures |');
  console.log('|---|--:|--:|--:|--:|');
  for (const { name } of corpora) {
    const of = outcomes.filter((o) => o.corpus === name);
    const count = (outcome) => of.filter((o) => o.outcome === outcome).length;
    console.log(`| ${name} | ${of.length} | ${count('captured')} | ${count('bot_challenge')} | ${count('failed')} |`);
  }
  for (const o of outcomes.filter((o) => o.outcome !== 'captured')) console.log(`\n- ${o.corpus}/${o.file}: ${o.outcome} (${o.why})`);
}

try {
  await main();
} finally {
  await cleanup();
}
