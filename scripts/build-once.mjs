#!/usr/bin/env node
// `npm run build` unless dist/ already holds the build of this very checkout: `npm run setup` builds,
// and `npm test` (pretest) would build the same sources again a minute later, as on a fresh clone.
// A build counts as this checkout's only when this script made it from a commit with no change in
// the working tree, and nothing has changed since: an edit, an untracked file, a new commit or a
// build by other hands (`npm run build` rewrites dist/) builds again, as does a tree outside git.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Outside dist/, which the package ships; `npm ci` removes it with the rest of node_modules. */
const STAMP = path.join(ROOT, 'node_modules/.cache/capture-engine/built-from');
/** A file every build writes anew: its modification time tells one build from the next. */
const BUILT = path.join(ROOT, 'dist/src/index.js');

/** The commit checked out, when the working tree has no change (ignored files aside); else undefined. */
function cleanCommit() {
  const git = (...args) => spawnSync('git', args, { cwd: ROOT, encoding: 'utf8' });
  const head = git('rev-parse', 'HEAD');
  const status = git('status', '--porcelain', '--untracked-files=all');
  if (head.status !== 0 || status.status !== 0 || status.stdout.trim() !== '') return undefined;
  return head.stdout.trim();
}

/** What the stamp says of the build in dist/ now: the commit and the build's time, or undefined. */
function stampOf(commit) {
  const built = statSync(BUILT, { bigint: true, throwIfNoEntry: false });
  return commit && built ? `${commit} ${built.mtimeNs}` : undefined;
}

const read = (file) => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
};

const commit = cleanCommit();
const stamp = stampOf(commit);
if (stamp && read(STAMP) === stamp) {
  console.log(`build: dist/ is already the build of ${commit.slice(0, 12)}, with no change since`);
} else {
  const build = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
  const after = cleanCommit() === commit ? stampOf(commit) : undefined;
  if (after) {
    mkdirSync(path.dirname(STAMP), { recursive: true });
    writeFileSync(STAMP, after);
  }
}
