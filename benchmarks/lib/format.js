// Number formatting for the report tables. `missing` is what a value that is not a finite number
// prints as (each report keeps its own mark: '–', '-' or 'n/a').

/** x with `digits` decimals. */
export const fixed = (x, digits = 1, missing = '–') => (Number.isFinite(x) ? x.toFixed(digits) : missing);

/** Bytes as whole MiB. */
export const mebibytes = (bytes, missing = '–') => (Number.isFinite(bytes) ? (bytes / 2 ** 20).toFixed(0) : missing);

/** Milliseconds: one decimal below 10, none above. */
export const millis = (v, missing = 'n/a') => (Number.isFinite(v) ? v.toFixed(v < 10 ? 1 : 0) : missing);

/** A whole number with thousands separators: 12,345. */
export const integer = (n) => Math.round(n).toLocaleString('en-US');
