/**
 * Every URL a piece of CSS can load, read with the tokenizer rules of CSS
 * Syntax Level 3 (what browsers implement), not with a regular expression:
 * escapes (`\75 rl(` is `url(`), comments, strings and unquoted url tokens
 * all count as a browser counts them.
 *
 * Found: url(...) in both forms, src(...), `@import "..."`, every string
 * inside image-set(), -webkit-image-set(), image(), cross-fade() and their
 * prefixed forms, and any other string that starts like a network address
 * (`scheme://` or `//`), wherever it stands. Erring towards seeing too much
 * only makes verify-bundle stricter.
 */

/** One URL found in CSS. */
export interface CssLink {
  value: string;
  /** What the value came from: `url()`, `@import`, `image-set()`, a plain string. */
  via: string;
}

type Token =
  | { t: 'url'; value: string }
  | { t: 'function'; name: string }
  | { t: 'at'; name: string }
  | { t: 'string'; value: string }
  | { t: 'open' }
  | { t: 'close' }
  | { t: 'ws' }
  | { t: 'other' };

const HEX = /[0-9a-fA-F]/;
const WS = /[\t\n ]/;

function isIdentStart(c: string | undefined): boolean {
  return c !== undefined && (/[A-Za-z_]/.test(c) || c.charCodeAt(0) >= 0x80);
}
function isIdentChar(c: string | undefined): boolean {
  return c !== undefined && (isIdentStart(c) || /[0-9-]/.test(c));
}
function validEscape(a: string | undefined, b: string | undefined): boolean {
  return a === '\\' && b !== '\n';
}

/** The tokens that matter for loading; everything else is `other`. */
function tokenize(input: string): Token[] {
  // CSS preprocessing: newlines normalised, NUL replaced.
  const s = input.replace(/\r\n?|\f/g, '\n').replace(/\0/g, '\ufffd');
  const out: Token[] = [];
  let i = 0;

  const escape = (): string => {
    // Called with s[i] just after the backslash.
    const c = s[i];
    if (c === undefined) return '\ufffd';
    if (HEX.test(c)) {
      let hex = '';
      while (hex.length < 6 && s[i] !== undefined && HEX.test(s[i]!)) hex += s[i++];
      if (s[i] !== undefined && WS.test(s[i]!)) i++;
      const code = Number.parseInt(hex, 16);
      return code === 0 || (code >= 0xd800 && code <= 0xdfff) || code > 0x10ffff ? '\ufffd' : String.fromCodePoint(code);
    }
    i++;
    return c;
  };
  const startsIdent = (at: number): boolean => {
    const [a, b, c] = [s[at], s[at + 1], s[at + 2]];
    if (a === '-') return isIdentStart(b) || b === '-' || validEscape(b, c);
    if (isIdentStart(a)) return true;
    return validEscape(a, b);
  };
  const ident = (): string => {
    let name = '';
    for (;;) {
      const c = s[i];
      if (isIdentChar(c)) {
        name += c;
        i++;
      } else if (validEscape(c, s[i + 1])) {
        i++;
        name += escape();
      } else return name;
    }
  };
  const string = (quote: string): Token => {
    let value = '';
    for (;;) {
      const c = s[i];
      if (c === undefined) return { t: 'string', value };
      i++;
      if (c === quote) return { t: 'string', value };
      if (c === '\n') {
        // A bad string: the newline is not part of it, and nothing loads from it.
        i--;
        return { t: 'other' };
      }
      if (c === '\\') {
        if (s[i] === undefined) continue;
        if (s[i] === '\n') {
          i++;
          continue;
        }
        value += escape();
      } else value += c;
    }
  };
  const badUrlRemnants = (): void => {
    while (i < s.length) {
      const c = s[i];
      if (c === ')') {
        i++;
        return;
      }
      if (validEscape(c, s[i + 1])) {
        i++;
        escape();
      } else i++;
    }
  };
  const url = (): Token => {
    let value = '';
    while (s[i] !== undefined && WS.test(s[i]!)) i++;
    for (;;) {
      const c = s[i];
      if (c === undefined) return { t: 'url', value };
      i++;
      if (c === ')') return { t: 'url', value };
      if (WS.test(c)) {
        while (s[i] !== undefined && WS.test(s[i]!)) i++;
        if (s[i] === ')' || s[i] === undefined) {
          i++;
          return { t: 'url', value };
        }
        badUrlRemnants();
        return { t: 'other' };
      }
      if (c === '"' || c === "'" || c === '(' || /[\u0000-\u0008\u000b\u000e-\u001f\u007f]/.test(c)) {
        badUrlRemnants();
        return { t: 'other' };
      }
      if (c === '\\') {
        if (validEscape(c, s[i])) value += escape();
        else {
          badUrlRemnants();
          return { t: 'other' };
        }
      } else value += c;
    }
  };

  while (i < s.length) {
    const c = s[i]!;
    if (c === '/' && s[i + 1] === '*') {
      const end = s.indexOf('*/', i + 2);
      i = end < 0 ? s.length : end + 2;
      continue;
    }
    if (WS.test(c)) {
      while (s[i] !== undefined && WS.test(s[i]!)) i++;
      out.push({ t: 'ws' });
      continue;
    }
    if (c === '"' || c === "'") {
      i++;
      out.push(string(c));
      continue;
    }
    if (c === '@' && startsIdent(i + 1)) {
      i++;
      out.push({ t: 'at', name: ident().toLowerCase() });
      continue;
    }
    if (startsIdent(i)) {
      const name = ident();
      if (s[i] === '(') {
        i++;
        const lower = name.toLowerCase();
        if (lower === 'url') {
          // url( followed by a quote is a function holding a string; otherwise an unquoted url token.
          let j = i;
          while (s[j] !== undefined && WS.test(s[j]!)) j++;
          if (s[j] === '"' || s[j] === "'") out.push({ t: 'function', name: 'url' });
          else out.push(url());
        } else out.push({ t: 'function', name: lower });
      } else out.push({ t: 'other' });
      continue;
    }
    if (c === '(' || c === '[' || c === '{') out.push({ t: 'open' });
    else if (c === ')' || c === ']' || c === '}') out.push({ t: 'close' });
    else out.push({ t: 'other' });
    i++;
  }
  return out;
}

const URL_FUNCTIONS = new Set(['url', 'src']);
const IMAGE_FUNCTIONS = /^(-[a-z]+-)?(image-set|image|cross-fade)$/;
const NETWORK_LIKE = /^[\t\n\f\r ]*(?:[a-zA-Z][a-zA-Z0-9+.-]*:)?\/\//;

/** Every URL the CSS can load, in source order. */
export function cssLinks(css: string): CssLink[] {
  const found: CssLink[] = [];
  // The function each open bracket belongs to ('' for a plain bracket or block).
  const stack: string[] = [];
  let importPending = false;
  for (const tok of tokenize(css)) {
    if (tok.t === 'ws') continue;
    const inside = stack.at(-1) ?? '';
    if (tok.t === 'url') found.push({ value: tok.value, via: 'url()' });
    else if (tok.t === 'string') {
      if (importPending) found.push({ value: tok.value, via: '@import' });
      else if (URL_FUNCTIONS.has(inside)) found.push({ value: tok.value, via: `${inside}()` });
      else if (stack.some((f) => IMAGE_FUNCTIONS.test(f))) found.push({ value: tok.value, via: `${stack.find((f) => IMAGE_FUNCTIONS.test(f))}()` });
      else if (NETWORK_LIKE.test(tok.value)) found.push({ value: tok.value, via: 'string' });
    }
    importPending = tok.t === 'at' && tok.name === 'import';
    if (tok.t === 'function') stack.push(tok.name);
    else if (tok.t === 'open') stack.push('');
    else if (tok.t === 'close') stack.pop();
  }
  return found;
}
