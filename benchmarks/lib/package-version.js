// Versions of the packages a report names.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ROOT } from './dist.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const readVersion = (file) => JSON.parse(fs.readFileSync(file, 'utf8')).version;

/** Version of `pkg` as Node would resolve it from benchmarks/ (its node_modules, then the root's), or '?'. */
export function packageVersion(pkg) {
  for (let dir = HERE; ; dir = path.dirname(dir)) {
    try {
      return readVersion(path.join(dir, 'node_modules', pkg, 'package.json'));
    } catch {
      if (dir === path.dirname(dir)) return '?';
    }
  }
}

/** Version of capture-engine itself (the repository's package.json), or '?'. */
export function engineVersion() {
  try {
    return readVersion(path.join(ROOT, 'package.json'));
  } catch {
    return '?';
  }
}
