// Command-line options of the benchmark scripts, read with node:util parseArgs.
//
//   const opts = readOptions(import.meta.url, { quick: { flag: true, env: 'BENCH_QUICK' }, pages: { env: 'BENCH_PAGES' } });
//   opts.flag('quick'); opts.number('iterations', 3); opts.list('pages', 'simple,heavy'); opts.text('mode', 'one');
//
// Every option takes `--name=value` or `--name value`; a flag is `--name`. The argument wins over
// the environment variable named in the spec, which wins over the default given at the call.
// `--help` (`-h`) prints the script's header comment; an unknown option is an error.

import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const truthy = (v) => /^(1|true|yes)$/i.test(String(v ?? ''));
const splitList = (v) => String(v).split(',').map((s) => s.trim()).filter(Boolean);

/** The comment block at the top of a script (after the shebang), without the comment marks. */
export function headerComment(scriptUrl) {
  const lines = fs.readFileSync(fileURLToPath(scriptUrl), 'utf8').split('\n');
  const from = lines[0].startsWith('#!') ? 1 : 0;
  const end = lines.findIndex((l, i) => i >= from && !l.startsWith('//'));
  return lines.slice(from, end === -1 ? lines.length : end).map((l) => l.replace(/^\/\/ ?/, '')).join('\n');
}

/**
 * Parses `args` against `spec` ({ name: { flag?: true, env?: 'ENV_NAME' } }) and returns getters.
 * Prints the header comment and exits on --help; prints the error and exits 2 on a bad argument.
 */
export function readOptions(scriptUrl, spec, args = process.argv.slice(2)) {
  const options = { help: { type: 'boolean', short: 'h' } };
  for (const [name, s] of Object.entries(spec)) options[name] = { type: s.flag ? 'boolean' : 'string' };
  let values;
  try {
    ({ values } = parseArgs({ args, options, strict: true, allowPositionals: false }));
  } catch (error) {
    console.error(`${error.message} (see --help)`);
    process.exit(2);
  }
  if (values.help) {
    console.log(headerComment(scriptUrl));
    process.exit(0);
  }
  const env = (name) => (spec[name]?.env ? process.env[spec[name].env] : undefined);
  const text = (name, dflt) => values[name] ?? env(name) ?? dflt;
  return {
    flag: (name) => values[name] === true || truthy(env(name)),
    text,
    number: (name, dflt) => Number(text(name, dflt)),
    list: (name, dflt) => splitList(text(name, dflt)),
  };
}
