// Markdown tables for the reports.

/**
 * The lines of a Markdown table, joined with '\n'. `align` is a string with one letter per column,
 * 'l' (default) or 'r' (right-aligned: `--:`); with `pad`, cells are padded to the column's width
 * and the rule is as wide as each column.
 */
export function markdownTable(header, rows, { align = '', pad = false } = {}) {
  const lines = [header, ...rows].map((r) => r.map(String));
  const widths = header.map((_, i) => (pad ? Math.max(...lines.map((l) => l[i].length)) : 0));
  const row = (cells) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  const rule = header.map((_, i) => (pad ? '-'.repeat(widths[i] + 2) : align[i] === 'r' ? '--:' : '---'));
  return [row(lines[0]), `|${rule.join('|')}|`, ...lines.slice(1).map(row)].join('\n');
}
