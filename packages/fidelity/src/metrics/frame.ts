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

/** One decoded frame: the 8-bit Y, U and V planes (and, only when ffmpeg converted it, rgb24), with its geometry. */
export interface DecodedFrame extends FrameGeometry {
  y: Uint8Array;
  u: Uint8Array;
  v: Uint8Array;
  /**
   * rgb24 (width * height * 3 bytes) as ffmpeg converted it, for a stream whose RGB conversion is
   * `ffmpeg` ({@link rgbConversionFor}); absent or empty when the metrics convert the planes themselves
   * (`fidelity`, the default).
   */
  rgb?: Uint8Array;
}
