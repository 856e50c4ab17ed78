// An Io that records what a command printed, so tests can assert on stdout and stderr separately.
import type { Io } from '../src/io.js';

export interface Captured extends Io {
  stdout: () => string;
  stderr: () => string;
}

export function capture(errIsTty = false): Captured {
  let out = '';
  let err = '';
  return {
    out: (t) => {
      out += t;
    },
    err: (t) => {
      err += t;
    },
    errIsTty,
    stdout: () => out,
    stderr: () => err,
  };
}
