import { execFile } from 'node:child_process';

/** Makes a FIFO with the system's mkfifo; false where there is none (the test then has nothing to check). */
export function mkfifo(file: string): Promise<boolean> {
  return new Promise((resolve) => execFile('mkfifo', [file], (error) => resolve(!error)));
}
