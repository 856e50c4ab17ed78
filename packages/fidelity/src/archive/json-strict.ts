/**
 * What JSON.parse lets through and a run archive must not hold: a byte order
 * mark (RFC 8259 forbids one), a key twice in one object (JSON.parse keeps
 * the last one silently, another reader may keep the first: two readers
 * would see two different runs), and nesting deep enough to overflow a
 * recursive reader later (the bundle writer, zod). One pass over the text,
 * no recursion, before JSON.parse.
 */
import { jsonPath } from './findings.js';

/** Deepest nesting of objects and arrays a run archive's JSON may have; the formats need 4. */
export const MAX_JSON_DEPTH = 64;

export type JsonFault =
  | { code: 'JSON_BOM'; message: string }
  | { code: 'JSON_TOO_DEEP'; message: string; path: string; line: number }
  | { code: 'JSON_DUPLICATE_KEY'; message: string; path: string; line: number };

export function hasBom(bytes: Uint8Array): boolean {
  return bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
}

interface Level {
  object: boolean;
  keys: Set<string>;
  /** Object: the key being read; array: the index. */
  at: string | number;
  expectKey: boolean;
}

/**
 * Nesting and duplicate keys of a JSON text. Syntax is JSON.parse's job: on
 * text that is not JSON this may miss things or stop early, never throw.
 * Stops at the first too-deep point; lists at most `maxDuplicates` keys.
 */
export function scanJson(text: string, maxDuplicates = 20): JsonFault[] {
  const faults: JsonFault[] = [];
  const stack: Level[] = [];
  let line = 1;
  const path = () => jsonPath(stack.map((l) => l.at));
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 0x0a) line += 1;
    else if (ch === 0x7b /* { */ || ch === 0x5b /* [ */) {
      if (stack.length >= MAX_JSON_DEPTH) {
        faults.push({ code: 'JSON_TOO_DEEP', message: `objects and arrays are nested more than ${MAX_JSON_DEPTH} deep`, path: path(), line });
        return faults;
      }
      stack.push({ object: ch === 0x7b, keys: new Set(), at: ch === 0x7b ? '' : 0, expectKey: ch === 0x7b });
    } else if (ch === 0x7d /* } */ || ch === 0x5d /* ] */) stack.pop();
    else if (ch === 0x2c /* , */) {
      const top = stack.at(-1);
      if (top?.object) top.expectKey = true;
      else if (top) top.at = (top.at as number) + 1;
    } else if (ch === 0x22 /* " */) {
      let end = i + 1;
      while (end < text.length && text.charCodeAt(end) !== 0x22) end += text.charCodeAt(end) === 0x5c ? 2 : 1;
      const top = stack.at(-1);
      if (top?.object && top.expectKey) {
        let key = text.slice(i + 1, end);
        if (key.includes('\\')) {
          try {
            // Escapes count: "run_id" and "run\u005fid" are the same key.
            key = JSON.parse(text.slice(i, end + 1)) as string;
          } catch {
            return faults;
          }
        }
        top.expectKey = false;
        top.at = key;
        if (top.keys.has(key)) {
          if (faults.length < maxDuplicates) {
            faults.push({ code: 'JSON_DUPLICATE_KEY', message: `key ${JSON.stringify(key)} appears twice in one object; which one counts depends on the reader`, path: path(), line });
          }
        } else top.keys.add(key);
      }
      i = end;
    }
  }
  return faults;
}
