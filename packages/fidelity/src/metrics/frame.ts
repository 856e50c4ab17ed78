/**
 * What the decoder hands the video metrics: one frame's planes at the
 * stream's own size, tightly packed (no stride padding).
 */

/** Plane sizes of a stream; chroma is e.g. ceil(w/2) x ceil(h/2) for yuv420p. */
export interface FrameGeometry {
  width: number;
  height: number;
  chromaWidth: number;
  chromaHeight: number;
}

/** One decoded frame: the 8-bit Y, U and V planes and the packed rgb24 picture, with its geometry. */
export interface DecodedFrame extends FrameGeometry {
  y: Uint8Array;
  u: Uint8Array;
  v: Uint8Array;
  /** rgb24 as ffmpeg converts it: width * height * 3 bytes. */
  rgb: Uint8Array;
}
