/**
 * sharp, loaded on the first image a bundle writes. Its native addon and libvips are the single
 * largest cost of loading the library (docs/performance.md, "Start-up"); a program that imports the
 * library to verify a run or diff two reports never draws a still, so it never pays for them.
 */
import type sharpModule from 'sharp';

let loading: Promise<typeof sharpModule> | undefined;

/** sharp's default export, imported once per process on first use. */
export function loadSharp(): Promise<typeof sharpModule> {
  loading ??= import('sharp').then((m) => m.default);
  return loading;
}
