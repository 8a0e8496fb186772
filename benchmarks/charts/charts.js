// Charts of the benchmark results: reads the tables of results/*.md and writes SVGs into
// results/charts/, drawn with Vega-Lite and rendered by Vega in Node (no browser, no canvas).
// `node benchmarks/charts/charts.js` after `bash benchmarks/setup.sh`; docs/benchmarks.md shows them.
// Each chart names the run it draws (file and headings): a newer run is charted by changing them here.
import { mkdirSync, writeFileSync } from 'node:fs';
import * as vega from 'vega';
import { compile } from 'vega-lite';
import { number, range, tableAfter } from './read-tables.js';

const OUT = new URL('../results/charts/', import.meta.url);
/** The binaries suite's full run after the omnibox switch and the warm contexts at rest (issue 49). */
const BINARIES_RUN = '## 2026-11-27 18:08 UTC';
const BINARY = { shell: 'headless shell', full: 'full Chromium' };
const CONTENDER = { service: 'capture-engine service', loop: 'bare Playwright loop' };
const plain = (markdown) => markdown.replaceAll('`', '');
const source = (file, path) => `benchmarks/results/${file}: ${path.map((heading) => heading.replace(/^#+ /, '')).join(' › ')}`;

const binariesRows = () => ['### shell:', '### full:'].flatMap((binary) => tableAfter('binaries.md', [BINARIES_RUN, binary]));

/** Captures/s at 1, 2 and 4 at once, per binary and contender. */
function throughput() {
  const values = binariesRows().flatMap((row) =>
    ['c1 /s', 'c2 /s', 'c4 /s'].map((column) => ({ binary: BINARY[row.binary], contender: CONTENDER[row.contender], concurrency: column.replace(' /s', '').replace('c', 'c='), rate: number(row[column]) })),
  );
  return {
    title: { text: 'Captures per second at 1, 2 and 4 at once (1280x720 PNG, 2 cores)', subtitle: source('binaries.md', [BINARIES_RUN]) },
    data: { values },
    mark: 'bar',
    encoding: {
      column: { field: 'binary', type: 'nominal', title: null, sort: Object.values(BINARY) },
      x: { field: 'concurrency', type: 'ordinal', title: 'captures at once', axis: { labelAngle: 0 } },
      xOffset: { field: 'contender', type: 'nominal', sort: Object.values(CONTENDER) },
      y: { field: 'rate', type: 'quantitative', title: 'captures/s' },
      color: { field: 'contender', type: 'nominal', title: null, sort: Object.values(CONTENDER), legend: { orient: 'bottom' } },
      tooltip: [{ field: 'rate' }],
    },
    width: 260,
    height: 220,
  };
}

/** RSS and PSS at rest and the peak RSS at 4 at once, per binary and contender. */
function memory() {
  const measures = { 'RSS rest MiB': 'RSS at rest', 'PSS rest MiB': 'PSS at rest', 'RSS peak c4 MiB': 'RSS peak at c=4' };
  const values = binariesRows().flatMap((row) =>
    Object.entries(measures).map(([column, measure]) => ({ who: `${BINARY[row.binary]}: ${CONTENDER[row.contender]}`, measure, mib: number(row[column]) })),
  );
  return {
    title: { text: 'Memory of the whole process tree, MiB (at rest: after 12 s idle)', subtitle: source('binaries.md', [BINARIES_RUN]) },
    data: { values },
    mark: 'bar',
    encoding: {
      y: { field: 'who', type: 'nominal', title: null, sort: null },
      yOffset: { field: 'measure', type: 'nominal', sort: Object.values(measures) },
      x: { field: 'mib', type: 'quantitative', title: 'MiB' },
      color: { field: 'measure', type: 'nominal', title: null, sort: Object.values(measures), legend: { orient: 'bottom' } },
    },
    width: 460,
    height: { step: 14 },
  };
}

/** CPU per capture at 4 at once, stacked by process kind. */
function cpuByProcess() {
  const path = [BINARIES_RUN, '### CPU ms per capture at c4 by process kind'];
  const values = tableAfter('binaries.md', path).flatMap((row) =>
    Object.entries(row)
      .filter(([kind]) => !['binary', 'contender', 'total', 'captures'].includes(kind))
      .map(([kind, ms]) => ({ who: `${BINARY[row.binary]}: ${CONTENDER[row.contender]}`, kind, ms: number(ms) ?? 0 })),
  );
  return {
    title: { text: 'CPU ms per capture at 4 at once, by process', subtitle: source('binaries.md', path) },
    data: { values },
    mark: 'bar',
    encoding: {
      y: { field: 'who', type: 'nominal', title: null, sort: null },
      x: { field: 'ms', type: 'quantitative', title: 'CPU ms per capture', stack: 'zero' },
      color: { field: 'kind', type: 'nominal', title: null, sort: null, legend: { orient: 'bottom', columns: 4 } },
      order: { field: 'kind', sort: 'ascending' },
    },
    width: 460,
    height: { step: 26 },
  };
}

/** Refused requests answered per second, lowest to highest of the runs, by mounting. */
function httpLoad() {
  const path = ['# Load suite'];
  const values = tableAfter('load.md', path).map((row) => ({ mounting: plain(row.mounting), ...range(row['401 no key']) }));
  return {
    title: { text: '401 answers per second by mounting (lowest to highest of the runs)', subtitle: source('load.md', ['first table']) },
    data: { values },
    layer: [
      { mark: { type: 'bar', opacity: 0.35 }, encoding: { x: { field: 'low', type: 'quantitative', title: 'answers/s' }, x2: { field: 'high' } } },
      { mark: { type: 'tick', thickness: 2 }, encoding: { x: { field: 'low', type: 'quantitative' } } },
      { mark: { type: 'tick', thickness: 2 }, encoding: { x: { field: 'high', type: 'quantitative' } } },
    ],
    encoding: { y: { field: 'mounting', type: 'nominal', title: null, sort: null } },
    width: 420,
    height: { step: 22 },
  };
}

/** One PNG from a process that starts from nothing, on Node 20 and 24: median and range, against a 7-line Playwright script. */
function coldStart() {
  const path = ['## 2026-11-27: Node 20 and Node 24'];
  const values = tableAfter('cold-start.md', path).map((row) => ({ contender: plain(row.contender), mid: number(row['median ms']), low: number(row.min), high: number(row.max) }));
  return {
    title: { text: 'Cold start: spawn to exit, one PNG, ms (median of 11 rounds, min to max)', subtitle: source('cold-start.md', path) },
    data: { values },
    encoding: { y: { field: 'contender', type: 'nominal', title: null, sort: null } },
    layer: [
      { mark: 'bar', encoding: { x: { field: 'mid', type: 'quantitative', title: 'ms' }, color: { condition: { test: "indexof(datum.contender, 'floor') === 0", value: '#999' }, value: '#4c78a8' } } },
      { mark: { type: 'rule', color: 'black' }, encoding: { x: { field: 'low', type: 'quantitative' }, x2: { field: 'high' } } },
    ],
    width: 420,
    height: { step: 24 },
  };
}

export const CHARTS = { throughput, memory, 'cpu-by-process': cpuByProcess, 'http-load': httpLoad, 'cold-start': coldStart };

async function render(spec) {
  const config = { font: 'DejaVu Sans, Arial, sans-serif', background: 'white', title: { anchor: 'start', subtitleColor: '#555' }, axis: { labelLimit: 320 }, legend: { labelLimit: 320 } };
  const { spec: compiled } = compile({ $schema: 'https://vega.github.io/schema/vega-lite/v6.json', config, ...spec });
  return new vega.View(vega.parse(compiled), { renderer: 'none' }).toSVG();
}

mkdirSync(OUT, { recursive: true });
for (const [name, chart] of Object.entries(CHARTS)) {
  writeFileSync(new URL(`${name}.svg`, OUT), `${await render(chart())}\n`);
  console.log(`benchmarks/results/charts/${name}.svg`);
}
