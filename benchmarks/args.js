// `--name=value` and `--flag` arguments of the benchmark scripts, as { name: value | 'true' }.
export function parseArgs(args) {
  const out = {};
  for (const a of args) {
    const m = /^--([^=]+)(?:=(.*))?$/.exec(a);
    if (!m) throw new Error(`unknown argument ${a} (see --help)`);
    out[m[1]] = m[2] ?? 'true';
  }
  return out;
}
