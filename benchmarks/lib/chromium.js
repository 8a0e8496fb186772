// The browsers contenders drive: the system's, never a downloaded one. By default every contender
// drives the binary the engine finds, so that a table compares tools, not binaries: the same loop
// runs several times faster on Debian's headless shell than on full Chromium (results/binaries.md).

import { execFileSync } from 'node:child_process';
import { ENGINE_ENTRY, missing } from './dist.js';

// Chromium's headless shell (Debian's chromium-headless-shell): the binaries suite's `shell`, the
// static suite's `floor-fast-shell` and `cdp-shell`.
export const HEADLESS_SHELL_PATH = process.env.BENCH_HEADLESS_SHELL_PATH || '/usr/lib/chromium/chromium-headless-shell';

// The full Chromium: the binaries suite's `full`.
export const FULL_CHROMIUM_PATH = process.env.CAPTURE_CHROMIUM_PATH || '/usr/bin/chromium';

/**
 * The binary createCaptureEngine() drives when given none: CAPTURE_CHROMIUM_PATH, else what the
 * built engine's findChromium() finds (the headless shell when installed). Asked of the engine in
 * a child process, so that a worker whose memory is measured does not load the engine to learn it,
 * and remembered in BENCH_ENGINE_CHROMIUM for the processes this one starts. Without the build,
 * the full Chromium (no engine runs then).
 */
function engineChromium() {
  if (process.env.CAPTURE_CHROMIUM_PATH) return process.env.CAPTURE_CHROMIUM_PATH;
  if (process.env.BENCH_ENGINE_CHROMIUM) return process.env.BENCH_ENGINE_CHROMIUM;
  if (missing(ENGINE_ENTRY)) return FULL_CHROMIUM_PATH;
  const script = `const { findChromium } = await import(${JSON.stringify(ENGINE_ENTRY)}); process.stdout.write(findChromium());`;
  const found = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  process.env.BENCH_ENGINE_CHROMIUM = found;
  return found;
}

// What every floor and peer drives unless a suite names another: the engine's binary.
export const CHROMIUM_PATH = engineChromium();

// Closed network, running as root (hence --no-sandbox).
export const LAUNCH_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

const versions = new Map();

/** What `<binary> --version` prints (Debian's full Chromium adds where it was built), or why it could not. */
export function chromiumVersion(binary) {
  if (!versions.has(binary)) {
    let version;
    try {
      version = execFileSync(binary, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 15_000 }).trim();
    } catch (error) {
      version = `--version failed: ${error.code ?? error.message}`;
    }
    versions.set(binary, version);
  }
  return versions.get(binary);
}

/** A binary as every report names it: its path and its `--version`. */
export const describeBinary = (binary) => `${binary} (\`${chromiumVersion(binary)}\`)`;

/** Contenders grouped by binary, in the order given: [[binary, [contender...]]...]. */
function byBinary(contenders) {
  const groups = new Map();
  for (const [name, binary] of Object.entries(contenders)) groups.set(binary, [...(groups.get(binary) ?? []), name]);
  return [...groups];
}

const MIXED = '**Contenders on different Chromium binaries**';
const WHY = 'a gap between them is partly the binaries\', not only the tools\' (benchmarks/results/binaries.md compares the engine and a bare Playwright loop on each binary)';

/**
 * One line for a table's header when the contenders ({ name: binary }) do not all drive one
 * binary, else null.
 */
export function mixedBinariesNote(contenders) {
  const groups = byBinary(contenders);
  if (groups.length < 2) return null;
  return `${MIXED} (${groups.map(([binary, names]) => `${names.join(', ')}: ${binary}`).join('; ')}): ${WHY}.`;
}

/** Markdown settings lines naming the binary, path and `--version`, of every contender ({ name: binary }). */
export function binaryLines(contenders) {
  const groups = byBinary(contenders);
  if (groups.length === 1) return [`- Chromium: ${describeBinary(groups[0][0])} for every contender (${groups[0][1].join(', ')})`];
  return [`- ${MIXED}; ${WHY}:`, ...groups.map(([binary, names]) => `  - ${names.join(', ')}: ${describeBinary(binary)}`)];
}
