// The real pages of the real-pages benchmark: long documentation pages nobody here wrote, from
// Debian's documentation packages as scripts/fetch-real-pages.sh unpacks them (never installed)
// into test/.artifacts/real-pages/<package>/.
//
// python3-doc holds no pages, only symlinks to python3.11-doc's, so the pages come from
// python3.11-doc itself. Some static files in the packages are symlinks to other packages
// (jquery.js, underscore.js -> /usr/share/javascript/...) that are not unpacked: they answer 404,
// as they would on a machine without those packages.

import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../lib/dist.js';

export const ARTIFACTS = path.join(ROOT, 'test/.artifacts/real-pages');

/** Package -> its HTML directory inside the unpacked package. */
export const PACKAGES = {
  'nodejs-doc': 'usr/share/doc/nodejs/api',
  'python3.11-doc': 'usr/share/doc/python3.11/html',
  'python-django-doc': 'usr/share/doc/python-django-doc/html',
  'debian-reference-en': 'usr/share/debian-reference',
};

/** label -> [package, page path under its HTML directory]. Long and varied pages. */
export const PAGES = {
  'node/fs': ['nodejs-doc', 'fs.html'],
  'node/buffer': ['nodejs-doc', 'buffer.html'],
  'node/url': ['nodejs-doc', 'url.html'],
  'python/stdtypes': ['python3.11-doc', 'library/stdtypes.html'],
  'python/functions': ['python3.11-doc', 'library/functions.html'],
  'python/tutorial': ['python3.11-doc', 'tutorial/index.html'],
  'django/models': ['python-django-doc', 'topics/db/models.html'],
  'django/settings': ['python-django-doc', 'ref/settings.html'],
  'debref/ch09': ['debian-reference-en', 'ch09.en.html'],
  'debref/ch02': ['debian-reference-en', 'ch02.en.html'],
};

export const FETCH_COMMAND = `bash scripts/fetch-real-pages.sh ${Object.keys(PACKAGES).join(' ')}`;

/** The HTML directory of `pkg`, symlinks resolved; it must stay inside the unpacked package. */
function htmlRoot(pkg) {
  const packageDir = path.join(ARTIFACTS, pkg);
  const dir = path.join(packageDir, PACKAGES[pkg]);
  if (!fs.existsSync(dir)) return null;
  const real = fs.realpathSync(dir);
  return real.startsWith(fs.realpathSync(packageDir) + path.sep) ? real : null;
}

/**
 * The selected pages (labels; all when empty), grouped by package: [{ pkg, root, pages: [{ label,
 * file }] }]. Throws an Error saying what is missing and how to fetch it.
 */
export function selectPages(labels = []) {
  const unknown = labels.filter((l) => !PAGES[l]);
  if (unknown.length) throw new Error(`unknown page(s) ${unknown.join(', ')}; known: ${Object.keys(PAGES).join(', ')}`);
  const chosen = labels.length ? labels : Object.keys(PAGES);
  const groups = new Map();
  const missing = [];
  for (const label of chosen) {
    const [pkg, file] = PAGES[label];
    if (!groups.has(pkg)) groups.set(pkg, { pkg, root: htmlRoot(pkg), pages: [] });
    const group = groups.get(pkg);
    const stats = group.root && fs.lstatSync(path.join(group.root, file), { throwIfNoEntry: false });
    if (stats?.isFile()) group.pages.push({ label, file });
    else missing.push(group.root ? `${pkg}: ${file}` : `${pkg} (not unpacked in ${path.relative(ROOT, ARTIFACTS)}/)`);
  }
  if (missing.length) {
    throw new Error(`real pages missing:\n  ${[...new Set(missing)].join('\n  ')}\n` +
      `fetch them (downloaded and unpacked, never installed) with \`${FETCH_COMMAND}\` at the repository root, or \`bash benchmarks/setup.sh\``);
  }
  return [...groups.values()];
}
