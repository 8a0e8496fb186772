import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** `capture-engine --version`: the package's version, from the package.json above this module (src/ or dist/src/). */
export function version(): void {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  const { version: number } = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version: string };
  process.stdout.write(`capture-engine, version ${number}\n`);
}
