import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isBuilt } from '../helpers/built-service.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The files `npm pack` puts in the package, as paths inside it. */
function packedFiles(): Set<string> {
  const [pack] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })) as [{ files: { path: string }[] }];
  return new Set(pack.files.map((file) => file.path));
}

// Issue 50, item 13: an installed package's stack traces (node --enable-source-maps) named src/*.ts
// files it did not ship, and typebox's sources at a path inside the package where no install puts them.
describe.skipIf(!isBuilt())('the source maps of the package', () => {
  it('name only files the package ships', () => {
    const files = packedFiles();
    const maps = [...files].filter((file) => file.endsWith('.js.map'));
    expect(maps.length).toBeGreaterThan(10);
    const missing = new Set<string>();
    for (const map of maps) {
      const { sources } = JSON.parse(readFileSync(path.join(ROOT, map), 'utf8')) as { sources: string[] };
      for (const source of sources) {
        const shipped = path.posix.normalize(path.posix.join(path.posix.dirname(map), source));
        if (!files.has(shipped)) missing.add(`${map} -> ${source}`);
      }
    }
    expect([...missing].slice(0, 10)).toEqual([]);
    // The sources a stack trace of the CLI names are there to open.
    expect(files.has('src/cli.ts')).toBe(true);
  });
});
