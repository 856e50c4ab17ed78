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

export interface DecodedFrame extends FrameGeometry {
  y: Uint8Array;
  u: Uint8Array;
  v: Uint8Array;
  /** rgb24 as ffmpeg converts it: width * height * 3 bytes. */
  rgb: Uint8Array;
}
