#!/usr/bin/env node
// The Node lines capture-engine is tested on besides the machine's own (issue 50). Each is the
// official binary of that line, installed from the npm registry's `node` package into
// .node-lines/<major> (git-ignored), once: a line already there is kept.
//
//   node scripts/node-lines.mjs install    (`npm run setup` runs it)
//   node scripts/node-lines.mjs test       (`npm test` runs it after the whole suite)
//
// `test` runs vitest on each line (its own binary first on PATH, so every child process the tests
// start is on that line too): the `unit` project, then the `smoke` project (vitest.config.ts: a
// PNG, a PDF and an mp4 from the built service, a capture served on each adapter, and the code
// cache, which takes another path from Node 22.1 on). It prints each line's wall time and each smoke
// test's, goes on to the next line when one fails, prints what failed last, and exits 1 if any did.
// A line's binary: .node-lines/<major>/node_modules/.bin/node (for benchmarks' --node, say).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { markdownTable } from '../benchmarks/lib/tables.js';

/** Maintenance LTS 22 and 24, active LTS 26; the machine's own Node (20) runs the whole suite. */
const NODE_LINES = [22, 24, 26];
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const LINES_DIR = path.join(ROOT, '.node-lines');
const VITEST = path.join(ROOT, 'node_modules/vitest/vitest.mjs');

/** Lines of each failure's message printed at the end: its assertion and where it failed. */
const FAILURE_LINES = 12;

const binDir = (major) => path.join(LINES_DIR, String(major), 'node_modules/.bin');
const binary = (major) => path.join(binDir(major), 'node');

/** The version a binary reports, or undefined when there is none that runs. */
function versionOf(file) {
  const run = spawnSync(file, ['--version'], { encoding: 'utf8' });
  return run.status === 0 ? run.stdout.trim() : undefined;
}

function install(major) {
  const found = versionOf(binary(major));
  if (found?.startsWith(`v${major}.`)) return console.log(`node-lines: Node ${found} already in .node-lines/${major}`);
  const dir = path.join(LINES_DIR, String(major));
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  // The package's install script fetches the binary of this machine's platform (node-<os>-<arch>).
  const npm = spawnSync('npm', ['install', '--prefix', dir, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--loglevel=error', `node@${major}`], { stdio: 'inherit' });
  const version = versionOf(binary(major));
  if (npm.status !== 0 || !version?.startsWith(`v${major}.`)) {
    console.error(`node-lines: npm install node@${major} did not give a Node ${major} binary at ${path.relative(ROOT, binary(major))}`);
    process.exit(1);
  }
  console.log(`node-lines: installed Node ${version} in .node-lines/${major}`);
}

/** Runs one vitest project on a line; its wall seconds and each test's ms from vitest's JSON report. */
function runProject(major, project, scratch) {
  const report = path.join(scratch, `${major}-${project}.json`);
  const started = performance.now();
  const run = spawnSync(binary(major), [VITEST, 'run', '--project', project, '--reporter=default', '--reporter=json', `--outputFile.json=${report}`], {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, PATH: `${binDir(major)}${path.delimiter}${process.env.PATH}` },
  });
  const seconds = (performance.now() - started) / 1000;
  let tests = [];
  try {
    const json = JSON.parse(readFileSync(report, 'utf8'));
    tests = json.testResults.flatMap((file) => file.assertionResults.map((test) => ({ name: test.fullName, ms: test.duration, status: test.status, failure: test.failureMessages?.join('\n') })));
  } catch {
    // No report: vitest did not get as far as running the project; its status says it failed.
  }
  return { ok: run.status === 0, seconds, tests };
}

function test() {
  const missing = NODE_LINES.filter((major) => !versionOf(binary(major))?.startsWith(`v${major}.`));
  if (missing.length) {
    console.error(`node-lines: Node ${missing.join(', ')} not installed in .node-lines/: run \`npm run setup\``);
    process.exit(1);
  }
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'capture-engine-node-lines-'));
  const results = [];
  try {
    for (const major of NODE_LINES) {
      const version = versionOf(binary(major));
      console.log(`\nnode-lines: Node ${version}: the unit project, then the smoke set`);
      const unit = runProject(major, 'unit', scratch);
      const smoke = runProject(major, 'smoke', scratch);
      results.push({ major, version, unit, smoke });
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }

  const secs = (s) => s.toFixed(1);
  console.log('\nnode-lines: wall seconds per line (the whole suite ran on this machine\'s Node before)\n');
  console.log(markdownTable(
    ['line', 'unit', 'smoke', 'unit + smoke', 'result'],
    results.map(({ version, unit, smoke }) => [version, secs(unit.seconds), secs(smoke.seconds), secs(unit.seconds + smoke.seconds), unit.ok && smoke.ok ? 'passed' : 'FAILED']),
  ));
  const names = [...new Set(results.flatMap(({ smoke }) => smoke.tests.map((t) => t.name)))];
  const cell = (tests, name) => {
    const found = tests.find((t) => t.name === name);
    return found ? `${Math.round(found.ms ?? 0)}${found.status === 'passed' ? '' : ` ${found.status}`}` : '-';
  };
  console.log('\nnode-lines: the smoke set, ms per test (served by express, fastify and koa: each includes its service\'s start)\n');
  console.log(markdownTable(['test', ...results.map((r) => r.version)], names.map((name) => [name, ...results.map((r) => cell(r.smoke.tests, name))])));
  // Last, so that the tail of a long log (all CI shows of it) says why a line failed.
  const failed = results.flatMap(({ version, unit, smoke }) => [...unit.tests, ...smoke.tests].filter((t) => t.failure).map((t) => ({ version, ...t })));
  for (const { version, name, failure } of failed) console.log(`\nnode-lines: failed on ${version}: ${name}\n${failure.split('\n').slice(0, FAILURE_LINES).join('\n')}`);
  if (results.some(({ unit, smoke }) => !unit.ok || !smoke.ok)) process.exit(1);
}

const command = process.argv[2];
if (command === 'install') NODE_LINES.forEach(install);
else if (command === 'test') test();
else {
  console.error('usage: node scripts/node-lines.mjs install|test');
  process.exit(2);
}
