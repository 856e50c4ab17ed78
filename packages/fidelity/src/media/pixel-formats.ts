/**
 * The pixel formats whose planes we hand to the metrics exactly as decoded:
 * 8-bit planar Y, U, V. The `j` (full-range, JPEG) variants have the same
 * layout; only their meaning differs, and luma metrics ignore range by
 * definition (docs/metrics.md). Anything else (10-bit, semi-planar, RGB, gray) is
 * refused rather than converted, because converting would change the
 * samples the metrics are defined on.
 */

export interface PlaneGeometry {
  width: number;
  height: number;
  chromaWidth: number;
  chromaHeight: number;
  /** Bytes of one decoded frame: Y then U then V, tightly packed. */
  yuvBytes: number;
  /** Bytes of one rgb24 frame. */
  rgbBytes: number;
}

/** log2 of the horizontal and vertical chroma subsampling. */
const SUBSAMPLING: Record<string, [number, number]> = {
  yuv420p: [1, 1],
  yuvj420p: [1, 1],
  yuv422p: [1, 0],
  yuvj422p: [1, 0],
  yuv444p: [0, 0],
  yuvj444p: [0, 0],
  yuv440p: [0, 1],
  yuvj440p: [0, 1],
  yuv411p: [2, 0],
  yuv410p: [2, 2],
};

export const SUPPORTED_PIXEL_FORMATS: readonly string[] = Object.keys(SUBSAMPLING).sort();

/** Plane sizes for a supported format; null for one we do not read. Chroma sizes round up, as FFmpeg's AV_CEIL_RSHIFT. */
export function planeGeometry(pixFmt: string, width: number, height: number): PlaneGeometry | null {
  const sub = SUBSAMPLING[pixFmt];
  if (!sub) return null;
  const chromaWidth = -(-width >> sub[0]);
  const chromaHeight = -(-height >> sub[1]);
  return {
    width,
    height,
    chromaWidth,
    chromaHeight,
    yuvBytes: width * height + 2 * chromaWidth * chromaHeight,
    rgbBytes: width * height * 3,
  };
}
