import { PACKAGE_VERSION } from '../core/identity.js';

/** `capture-engine --version`: the package's version. */
export function version(): void {
  process.stdout.write(`capture-engine, version ${PACKAGE_VERSION}\n`);
}
