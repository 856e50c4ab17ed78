/**
 * The text of report.json and partial.json: indented like
 * `JSON.stringify(value, null, 2)`, except that an array holding only
 * numbers, strings, booleans and nulls is written on one line
 * (`[0.998,0.997,null]`, no spaces). A per-frame series then takes one line
 * instead of one line per frame: the file stays readable (every object is
 * indented, every key on its own line) at about a third of the size.
 *
 * The output is a function of the value alone (keys in insertion order, the
 * numbers and strings exactly as JSON.stringify writes them, but for a DEL
 * character, written as the escape `\u007f`), so every writer
 * that uses it gives the same bytes for the same report, whatever the shard
 * or thread count. JSON.parse of the text gives back the value, as
 * JSON.stringify's would (undefined members dropped, toJSON applied,
 * non-finite numbers null).
 */

import { escapeDel } from '../json-file.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function isScalar(v: Json): v is null | boolean | number | string {
  return v === null || typeof v !== 'object';
}

function write(v: Json, indent: string, step: string): string {
  if (isScalar(v)) return JSON.stringify(v);
  const inner = indent + step;
  if (Array.isArray(v)) {
    if (v.length === 0) return '[]';
    if (v.every(isScalar)) return `[${v.map((x) => JSON.stringify(x)).join(',')}]`;
    return `[\n${v.map((x) => inner + write(x, inner, step)).join(',\n')}\n${indent}]`;
  }
  const keys = Object.keys(v);
  if (keys.length === 0) return '{}';
  return `{\n${keys.map((k) => `${inner}${JSON.stringify(k)}: ${write(v[k]!, inner, step)}`).join(',\n')}\n${indent}}`;
}

/**
 * `value` as JSON text, objects indented by `indent` spaces (2), arrays of
 * scalars on one line, with a trailing newline. See the file comment.
 *
 * @example
 * ```ts
 * jsonText({ a: [1, 2, null], b: { c: 'x' } });
 * // '{\n  "a": [1,2,null],\n  "b": {\n    "c": "x"\n  }\n}\n'
 * ```
 */
export function jsonText(value: unknown, indent = 2): string {
  const text = JSON.stringify(value);
  if (text === undefined) throw new TypeError('jsonText: the value has no JSON form');
  // One round trip through JSON.stringify applies its rules (toJSON, undefined, NaN) before formatting.
  // DEL escaped: the bundle's JSON is text without control characters (json-file.ts escapeDel).
  return `${escapeDel(write(JSON.parse(text) as Json, '', ' '.repeat(indent)))}\n`;
}
