/*
 * The per-frame video kernels of metrics/ (docs/metrics.md), compiled to
 * WebAssembly SIMD by packages/fidelity/scripts/build-wasm.sh. The built
 * module is committed under packages/fidelity/assets/ so that installs and CI
 * need no compiler.
 *
 * No libc: memory is laid out by the TypeScript caller (metrics/wasm.ts),
 * which passes every buffer as an offset into linear memory. Nothing here
 * keeps state between calls except what the caller hands back in (the FFmpeg
 * SSIM line buffers).
 *
 * Accuracy rules:
 *  - Gaussian SSIM works in float64 throughout: E[x^2] - E[x]^2 cancels
 *    catastrophically in float32 (tolerance against scikit-image is 1e-5).
 *  - Uniform-window SSIM keeps every window sum as an exact integer and does
 *    the cancellation (N*Sxx - Sx^2) in integers, so only the final ratio is
 *    rounded (float32, relative error ~1e-7 per pixel).
 *  - FFmpeg SSIM reproduces libavfilter's vf_ssim.c as the installed x86
 *    build runs it: integer 4x4 block sums, float32 per-window end, and the
 *    SSE4 ssim_end_line lane order including the windows it over-reads and
 *    subtracts again (their float rounding shows in the 6th decimal).
 */
#include <stdint.h>
#include <wasm_simd128.h>

#define EXPORT(name) __attribute__((export_name(#name)))

extern unsigned char __heap_base;

EXPORT(heap_base) uint32_t heap_base(void) { return (uint32_t)(uintptr_t)&__heap_base; }

/* ------------------------------------------------------------------------ */
/* Gaussian SSIM (Wang et al. 2004), 11x11, sigma 1.5, valid region only.    */
/* ------------------------------------------------------------------------ */

#define GR 5            /* radius: int(3.5 * 1.5 + 0.5), as scipy.ndimage */
#define GT (2 * GR + 1) /* taps */

/* Symmetric 11-tap filter of one row: out[x] = sum_k t[k] * (in[x+5-k] + in[x+5+k]).
 * Two outputs per step; the input pairs slide through registers (one load a
 * step), and the odd-offset pairs are shuffled out of their neighbours. */
static void gauss_row(const double *in, double *out, int nv, const double *t) {
  const v128_t t0 = wasm_f64x2_splat(t[0]), t1 = wasm_f64x2_splat(t[1]), t2 = wasm_f64x2_splat(t[2]);
  const v128_t t3 = wasm_f64x2_splat(t[3]), t4 = wasm_f64x2_splat(t[4]), t5 = wasm_f64x2_splat(t[5]);
  int x = 0;
  if (nv >= 2) {
    /* p[i] = in[x + 2i .. x + 2i + 1]: output pair (x, x+1) is centred on in[x+5 .. x+6] */
    v128_t p0 = wasm_v128_load(in), p1 = wasm_v128_load(in + 2), p2 = wasm_v128_load(in + 4);
    v128_t p3 = wasm_v128_load(in + 6), p4 = wasm_v128_load(in + 8);
    for (; x + 2 <= nv; x += 2) {
      v128_t p5 = wasm_v128_load(in + x + 10);
      v128_t q0 = wasm_i64x2_shuffle(p0, p1, 1, 2), q1 = wasm_i64x2_shuffle(p1, p2, 1, 2);
      v128_t q2 = wasm_i64x2_shuffle(p2, p3, 1, 2), q3 = wasm_i64x2_shuffle(p3, p4, 1, 2);
      v128_t q4 = wasm_i64x2_shuffle(p4, p5, 1, 2);
      /* in[x+j .. x+j+1]: j even -> p[j/2], j odd -> q[(j-1)/2]; centre j = 5 */
      v128_t acc = wasm_f64x2_mul(t0, q2);
      acc = wasm_f64x2_add(acc, wasm_f64x2_mul(t1, wasm_f64x2_add(p2, p3)));
      acc = wasm_f64x2_add(acc, wasm_f64x2_mul(t2, wasm_f64x2_add(q1, q3)));
      acc = wasm_f64x2_add(acc, wasm_f64x2_mul(t3, wasm_f64x2_add(p1, p4)));
      acc = wasm_f64x2_add(acc, wasm_f64x2_mul(t4, wasm_f64x2_add(q0, q4)));
      acc = wasm_f64x2_add(acc, wasm_f64x2_mul(t5, wasm_f64x2_add(p0, p5)));
      wasm_v128_store(out + x, acc);
      p0 = p1;
      p1 = p2;
      p2 = p3;
      p3 = p4;
      p4 = p5;
    }
  }
  for (; x < nv; x++) {
    const double *c = in + x + GR;
    double acc = t[0] * c[0];
    for (int k = 1; k <= GR; k++) acc += t[k] * (c[-k] + c[k]);
    out[x] = acc;
  }
}

#define RING (GT + 1) /* 12 rows: two output rows per step */

/*
 * Vertical symmetric filter of one map for `rows` (1 or 2) adjacent output
 * rows. r[k] is ring row k of that map; output row j uses r[j .. j+10].
 * One map per call keeps the live registers few (V8 spills otherwise).
 */
static void gauss_cols(const double *const *r, int rows, double *o0, double *o1, int nv, const double *t) {
  const v128_t t0 = wasm_f64x2_splat(t[0]), t1 = wasm_f64x2_splat(t[1]), t2 = wasm_f64x2_splat(t[2]);
  const v128_t t3 = wasm_f64x2_splat(t[3]), t4 = wasm_f64x2_splat(t[4]), t5 = wasm_f64x2_splat(t[5]);
  const double *r0 = r[0], *r1 = r[1], *r2 = r[2], *r3 = r[3], *r4 = r[4], *r5 = r[5];
  const double *r6 = r[6], *r7 = r[7], *r8 = r[8], *r9 = r[9], *r10 = r[10];
  int x = 0;
  if (rows == 2) {
    const double *r11 = r[11];
    for (; x + 2 <= nv; x += 2) {
      v128_t l1 = wasm_v128_load(r1 + x), l2 = wasm_v128_load(r2 + x), l3 = wasm_v128_load(r3 + x), l4 = wasm_v128_load(r4 + x);
      v128_t l5 = wasm_v128_load(r5 + x), l6 = wasm_v128_load(r6 + x), l7 = wasm_v128_load(r7 + x), l8 = wasm_v128_load(r8 + x);
      v128_t l9 = wasm_v128_load(r9 + x), l10 = wasm_v128_load(r10 + x);
      v128_t acc = wasm_f64x2_mul(t0, l5);
      acc = wasm_f64x2_add(acc, wasm_f64x2_mul(t1, wasm_f64x2_add(l4, l6)));
      acc = wasm_f64x2_add(acc, wasm_f64x2_mul(t2, wasm_f64x2_add(l3, l7)));
      acc = wasm_f64x2_add(acc, wasm_f64x2_mul(t3, wasm_f64x2_add(l2, l8)));
      acc = wasm_f64x2_add(acc, wasm_f64x2_mul(t4, wasm_f64x2_add(l1, l9)));
      acc = wasm_f64x2_add(acc, wasm_f64x2_mul(t5, wasm_f64x2_add(wasm_v128_load(r0 + x), l10)));
      wasm_v128_store(o0 + x, acc);
      acc = wasm_f64x2_mul(t0, l6);
      acc = wasm_f64x2_add(acc, wasm_f64x2_mul(t1, wasm_f64x2_add(l5, l7)));
      acc = wasm_f64x2_add(acc, wasm_f64x2_mul(t2, wasm_f64x2_add(l4, l8)));
      acc = wasm_f64x2_add(acc, wasm_f64x2_mul(t3, wasm_f64x2_add(l3, l9)));
      acc = wasm_f64x2_add(acc, wasm_f64x2_mul(t4, wasm_f64x2_add(l2, l10)));
      acc = wasm_f64x2_add(acc, wasm_f64x2_mul(t5, wasm_f64x2_add(l1, wasm_v128_load(r11 + x))));
      wasm_v128_store(o1 + x, acc);
    }
  } else {
    for (; x + 2 <= nv; x += 2) {
      v128_t acc = wasm_f64x2_mul(t0, wasm_v128_load(r5 + x));
      acc = wasm_f64x2_add(acc, wasm_f64x2_mul(t1, wasm_f64x2_add(wasm_v128_load(r4 + x), wasm_v128_load(r6 + x))));
      acc = wasm_f64x2_add(acc, wasm_f64x2_mul(t2, wasm_f64x2_add(wasm_v128_load(r3 + x), wasm_v128_load(r7 + x))));
      acc = wasm_f64x2_add(acc, wasm_f64x2_mul(t3, wasm_f64x2_add(wasm_v128_load(r2 + x), wasm_v128_load(r8 + x))));
      acc = wasm_f64x2_add(acc, wasm_f64x2_mul(t4, wasm_f64x2_add(wasm_v128_load(r1 + x), wasm_v128_load(r9 + x))));
      acc = wasm_f64x2_add(acc, wasm_f64x2_mul(t5, wasm_f64x2_add(wasm_v128_load(r0 + x), wasm_v128_load(r10 + x))));
      wasm_v128_store(o0 + x, acc);
    }
  }
  for (; x < nv; x++) {
    for (int j = 0; j < rows; j++) {
      double acc = t[0] * r[j + 5][x];
      for (int k = 1; k <= GR; k++) acc += t[k] * (r[j + 5 - k][x] + r[j + 5 + k][x]);
      (j ? o1 : o0)[x] = acc;
    }
  }
}

/* Sum of the SSIM map over one output row from its filtered moments. */
static double gauss_ssim_row(const double *ua, const double *ub, const double *us, const double *up, int nv, double C1, double C2) {
  const v128_t c1 = wasm_f64x2_splat(C1), c2 = wasm_f64x2_splat(C2), two = wasm_f64x2_splat(2.0);
  v128_t acc = wasm_f64x2_splat(0.0);
  int x = 0;
  for (; x + 2 <= nv; x += 2) {
    v128_t a = wasm_v128_load(ua + x), b = wasm_v128_load(ub + x), s = wasm_v128_load(us + x), p = wasm_v128_load(up + x);
    v128_t ab = wasm_f64x2_mul(a, b);
    v128_t a2b2 = wasm_f64x2_add(wasm_f64x2_mul(a, a), wasm_f64x2_mul(b, b));
    v128_t n1 = wasm_f64x2_add(wasm_f64x2_mul(two, ab), c1);
    v128_t n2 = wasm_f64x2_add(wasm_f64x2_mul(two, wasm_f64x2_sub(p, ab)), c2);
    v128_t d1 = wasm_f64x2_add(a2b2, c1);
    v128_t d2 = wasm_f64x2_add(wasm_f64x2_sub(s, a2b2), c2);
    acc = wasm_f64x2_add(acc, wasm_f64x2_div(wasm_f64x2_mul(n1, n2), wasm_f64x2_mul(d1, d2)));
  }
  double sum = wasm_f64x2_extract_lane(acc, 0) + wasm_f64x2_extract_lane(acc, 1);
  for (; x < nv; x++) {
    double ab = ua[x] * ub[x], a2b2 = ua[x] * ua[x] + ub[x] * ub[x];
    sum += ((2.0 * ab + C1) * (2.0 * (up[x] - ab) + C2)) / ((a2b2 + C1) * ((us[x] - a2b2) + C2));
  }
  return sum;
}

/*
 * Mean SSIM over the windows that lie fully inside the w x h plane.
 * taps: t[0..5] (centre first) of the normalised 1-D kernel; c: C1, C2.
 * scratch: 4*w + 4*12*(w-10) + 8*(w-10) doubles (gaussianScratchBytes()).
 */
EXPORT(ssim_gauss)
double ssim_gauss(const uint8_t *a, const uint8_t *b, int w, int h, const double *t, const double *c, double *scratch) {
  const int nv = w - 2 * GR, hv = h - 2 * GR;
  double *ra = scratch, *rb = ra + w, *rs = rb + w, *rp = rs + w;
  double *ring = rp + w;              /* [RING slots][4 maps][nv]: horizontally filtered rows */
  double *vo = ring + RING * 4 * nv;  /* [2 rows][4 maps][nv]: vertically filtered */
  double total = 0.0;

  for (int y = 0; y < h; y++) {
    const uint8_t *pa = a + (long)y * w, *pb = b + (long)y * w;
    int x = 0;
    for (; x + 4 <= w; x += 4) {
      v128_t va = wasm_u32x4_extend_low_u16x8(wasm_u16x8_extend_low_u8x16(wasm_v128_load32_zero(pa + x)));
      v128_t vb = wasm_u32x4_extend_low_u16x8(wasm_u16x8_extend_low_u8x16(wasm_v128_load32_zero(pb + x)));
      v128_t al = wasm_f64x2_convert_low_i32x4(va), ah = wasm_f64x2_convert_low_i32x4(wasm_i32x4_shuffle(va, va, 2, 3, 2, 3));
      v128_t bl = wasm_f64x2_convert_low_i32x4(vb), bh = wasm_f64x2_convert_low_i32x4(wasm_i32x4_shuffle(vb, vb, 2, 3, 2, 3));
      wasm_v128_store(ra + x, al);
      wasm_v128_store(ra + x + 2, ah);
      wasm_v128_store(rb + x, bl);
      wasm_v128_store(rb + x + 2, bh);
      wasm_v128_store(rs + x, wasm_f64x2_add(wasm_f64x2_mul(al, al), wasm_f64x2_mul(bl, bl)));
      wasm_v128_store(rs + x + 2, wasm_f64x2_add(wasm_f64x2_mul(ah, ah), wasm_f64x2_mul(bh, bh)));
      wasm_v128_store(rp + x, wasm_f64x2_mul(al, bl));
      wasm_v128_store(rp + x + 2, wasm_f64x2_mul(ah, bh));
    }
    for (; x < w; x++) {
      double va = pa[x], vb = pb[x];
      ra[x] = va;
      rb[x] = vb;
      rs[x] = va * va + vb * vb;
      rp[x] = va * vb;
    }
    double *slot = ring + (long)(y % RING) * 4 * nv;
    gauss_row(ra, slot, nv, t);
    gauss_row(rb, slot + nv, nv, t);
    gauss_row(rs, slot + 2 * nv, nv, t);
    gauss_row(rp, slot + 3 * nv, nv, t);

    /* Output rows go in pairs (y-6, y-5 from rows y-11 .. y); an odd last one alone (y-5 from y-10 .. y). */
    const int pair = y >= RING - 1 && ((y - (RING - 1)) & 1) == 0;
    const int single = !pair && y == h - 1 && y >= GT - 1;
    if (!pair && !single) continue;
    const int rows = pair ? 2 : 1;
    const int first = y - (pair ? RING - 1 : GT - 1);
    for (int m = 0; m < 4; m++) {
      const double *r[RING];
      for (int k = 0; k < GT - 1 + rows; k++) r[k] = ring + (long)((first + k) % RING) * 4 * nv + (long)m * nv;
      gauss_cols(r, rows, vo + (long)m * nv, vo + (long)(4 + m) * nv, nv, t);
    }
    for (int j = 0; j < rows; j++) {
      const double *o = vo + (long)j * 4 * nv;
      total += gauss_ssim_row(o, o + nv, o + 2 * nv, o + 3 * nv, nv, c[0], c[1]);
    }
  }
  return total / ((double)nv * (double)hv);
}

/* ------------------------------------------------------------------------ */
/* Uniform 7x7 SSIM with sample covariance (scikit-image defaults).          */
/* ------------------------------------------------------------------------ */

#define BW 7
#define BN (BW * BW)

/* Adds the maps of row (na, nb) to the vertical sums and, when oa is given,
 * removes those of row (oa, ob). a and b sums (at most 7 * 255) fit int16;
 * a^2 + b^2 and a*b sums need int32. */
static void box_rows_update(int16_t *va, int16_t *vb, int32_t *vs, int32_t *vp, const uint8_t *na, const uint8_t *nb,
                            const uint8_t *oa, const uint8_t *ob, int n) {
  int j = 0;
  for (; j + 8 <= n; j += 8) {
    v128_t an = wasm_u16x8_load8x8(na + j), bn = wasm_u16x8_load8x8(nb + j);
    v128_t ao, bo;
    if (oa) {
      ao = wasm_u16x8_load8x8(oa + j);
      bo = wasm_u16x8_load8x8(ob + j);
    } else {
      ao = wasm_i16x8_splat(0);
      bo = ao;
    }
    wasm_v128_store(va + j, wasm_i16x8_add(wasm_v128_load(va + j), wasm_i16x8_sub(an, ao)));
    wasm_v128_store(vb + j, wasm_i16x8_add(wasm_v128_load(vb + j), wasm_i16x8_sub(bn, bo)));
    /* a^2 + b^2 and a*b of new minus old, as exact i32 */
    v128_t sl = wasm_i32x4_sub(wasm_i32x4_add(wasm_i32x4_extmul_low_i16x8(an, an), wasm_i32x4_extmul_low_i16x8(bn, bn)),
                               wasm_i32x4_add(wasm_i32x4_extmul_low_i16x8(ao, ao), wasm_i32x4_extmul_low_i16x8(bo, bo)));
    v128_t sh = wasm_i32x4_sub(wasm_i32x4_add(wasm_i32x4_extmul_high_i16x8(an, an), wasm_i32x4_extmul_high_i16x8(bn, bn)),
                               wasm_i32x4_add(wasm_i32x4_extmul_high_i16x8(ao, ao), wasm_i32x4_extmul_high_i16x8(bo, bo)));
    v128_t pl = wasm_i32x4_sub(wasm_i32x4_extmul_low_i16x8(an, bn), wasm_i32x4_extmul_low_i16x8(ao, bo));
    v128_t ph = wasm_i32x4_sub(wasm_i32x4_extmul_high_i16x8(an, bn), wasm_i32x4_extmul_high_i16x8(ao, bo));
    wasm_v128_store(vs + j, wasm_i32x4_add(wasm_v128_load(vs + j), sl));
    wasm_v128_store(vs + j + 4, wasm_i32x4_add(wasm_v128_load(vs + j + 4), sh));
    wasm_v128_store(vp + j, wasm_i32x4_add(wasm_v128_load(vp + j), pl));
    wasm_v128_store(vp + j + 4, wasm_i32x4_add(wasm_v128_load(vp + j + 4), ph));
  }
  for (; j < n; j++) {
    int32_t xa = na[j], xb = nb[j], ya = oa ? oa[j] : 0, yb = ob ? ob[j] : 0;
    va[j] = (int16_t)(va[j] + xa - ya);
    vb[j] = (int16_t)(vb[j] + xb - yb);
    vs[j] += (xa * xa + xb * xb) - (ya * ya + yb * yb);
    vp[j] += xa * xb - ya * yb;
  }
}

/* Four window sums -> four SSIM values, summed into two f64x2 accumulators. */
static inline void box_ssim4(v128_t sa, v128_t sb, v128_t ss, v128_t sp, v128_t c1v, v128_t c2v, v128_t *accl, v128_t *acch) {
  const v128_t n49 = wasm_i32x4_splat(BN);
  v128_t tt = wasm_i32x4_mul(sa, sb);
  v128_t q = wasm_i32x4_add(wasm_i32x4_mul(sa, sa), wasm_i32x4_mul(sb, sb));
  v128_t a1 = wasm_f32x4_add(wasm_f32x4_convert_i32x4(wasm_i32x4_add(tt, tt)), c1v);
  v128_t b1 = wasm_f32x4_add(wasm_f32x4_convert_i32x4(q), c1v);
  v128_t cov = wasm_i32x4_sub(wasm_i32x4_mul(n49, sp), tt);
  v128_t a2 = wasm_f32x4_add(wasm_f32x4_convert_i32x4(wasm_i32x4_add(cov, cov)), c2v);
  v128_t b2 = wasm_f32x4_add(wasm_f32x4_convert_i32x4(wasm_i32x4_sub(wasm_i32x4_mul(n49, ss), q)), c2v);
  v128_t s = wasm_f32x4_div(wasm_f32x4_mul(a1, a2), wasm_f32x4_mul(b1, b2));
  *accl = wasm_f64x2_add(*accl, wasm_f64x2_promote_low_f32x4(s));
  *acch = wasm_f64x2_add(*acch, wasm_f64x2_promote_low_f32x4(wasm_i32x4_shuffle(s, s, 2, 3, 2, 3)));
}

/* sum_{k<7} v[j + k*step] for 4 int32 lanes, as a tree: 6 adds, 7 loads. */
static inline v128_t box7_i32(const int32_t *v, int j, int step) {
  v128_t s01 = wasm_i32x4_add(wasm_v128_load(v + j), wasm_v128_load(v + j + step));
  v128_t s23 = wasm_i32x4_add(wasm_v128_load(v + j + 2 * step), wasm_v128_load(v + j + 3 * step));
  v128_t s45 = wasm_i32x4_add(wasm_v128_load(v + j + 4 * step), wasm_v128_load(v + j + 5 * step));
  return wasm_i32x4_add(wasm_i32x4_add(s01, s23), wasm_i32x4_add(s45, wasm_v128_load(v + j + 6 * step)));
}

static inline v128_t box7_i16(const int16_t *v, int j, int step) {
  v128_t s01 = wasm_i16x8_add(wasm_v128_load(v + j), wasm_v128_load(v + j + step));
  v128_t s23 = wasm_i16x8_add(wasm_v128_load(v + j + 2 * step), wasm_v128_load(v + j + 3 * step));
  v128_t s45 = wasm_i16x8_add(wasm_v128_load(v + j + 4 * step), wasm_v128_load(v + j + 5 * step));
  return wasm_i16x8_add(wasm_i16x8_add(s01, s23), wasm_i16x8_add(s45, wasm_v128_load(v + j + 6 * step)));
}

/*
 * Sum over the valid region of the 7x7 uniform-window SSIM of an interleaved
 * plane: each row has `cols` samples and the window's horizontal taps are
 * `step` samples apart (3 for rgb24, so every channel is its own image).
 * Returns the sum; the caller divides by (cols - 6*step) * (h - 6).
 * scratch: see boxScratchBytes() in ssim-rgb7.ts.
 */
EXPORT(ssim_box7)
double ssim_box7(const uint8_t *a, const uint8_t *b, int cols, int h, int step, void *scratch) {
  const int nv = cols - (BW - 1) * step;
  const int stride = (cols + 8 + 7) & ~7;
  int16_t *va = (int16_t *)scratch, *vb = va + stride;
  int32_t *vs = (int32_t *)(vb + stride), *vp = vs + stride;
  /* Constants scaled by N^2 (means) and N(N-1) (sample covariance): the window sums stay integers. */
  const float c1 = (float)((0.01 * 255) * (0.01 * 255) * BN * BN);
  const float c2 = (float)((0.03 * 255) * (0.03 * 255) * BN * (BN - 1));
  const v128_t c1v = wasm_f32x4_splat(c1), c2v = wasm_f32x4_splat(c2);
  for (int j = 0; j < stride; j++) va[j] = vb[j] = 0;
  for (int j = 0; j < stride; j++) vs[j] = vp[j] = 0;
  for (int r = 0; r < BW; r++) box_rows_update(va, vb, vs, vp, a + (long)r * cols, b + (long)r * cols, 0, 0, cols);

  double total = 0.0;
  for (int y = 0;; y++) {
    v128_t accl = wasm_f64x2_splat(0.0), acch = accl;
    int j = 0;
    for (; j + 8 <= nv; j += 8) {
      v128_t sa = box7_i16(va, j, step), sb = box7_i16(vb, j, step);
      box_ssim4(wasm_i32x4_extend_low_i16x8(sa), wasm_i32x4_extend_low_i16x8(sb), box7_i32(vs, j, step), box7_i32(vp, j, step), c1v,
                c2v, &accl, &acch);
      box_ssim4(wasm_i32x4_extend_high_i16x8(sa), wasm_i32x4_extend_high_i16x8(sb), box7_i32(vs, j + 4, step),
                box7_i32(vp, j + 4, step), c1v, c2v, &accl, &acch);
    }
    accl = wasm_f64x2_add(accl, acch);
    double row = wasm_f64x2_extract_lane(accl, 0) + wasm_f64x2_extract_lane(accl, 1);
    for (; j < nv; j++) {
      int32_t sa = 0, sb = 0, ss = 0, sp = 0;
      for (int k = 0; k < BW; k++) {
        sa += va[j + k * step];
        sb += vb[j + k * step];
        ss += vs[j + k * step];
        sp += vp[j + k * step];
      }
      int32_t tt = sa * sb, q = sa * sa + sb * sb, cov = BN * sp - tt;
      float a1 = (float)(tt + tt) + c1, b1 = (float)q + c1;
      float a2 = (float)(cov + cov) + c2, b2 = (float)(BN * ss - q) + c2;
      row += (double)((a1 * a2) / (b1 * b2));
    }
    total += row;
    if (y + BW >= h) break;
    box_rows_update(va, vb, vs, vp, a + (long)(y + BW) * cols, b + (long)(y + BW) * cols, a + (long)y * cols,
                    b + (long)y * cols, cols);
  }
  return total;
}

/* ------------------------------------------------------------------------ */
/* FFmpeg / x264 SSIM (libavfilter/vf_ssim.c, 8-bit path, x86 SIMD order).   */
/* ------------------------------------------------------------------------ */

/* One line of 4x4 block sums; the SSSE3 kernel writes blocks in pairs, so an
 * odd count writes one more block, reading past the plane's right edge
 * (replicated here: FFmpeg reads whatever the frame buffer holds there). */
static void ff_4x4_line(const uint8_t *a, const uint8_t *b, int w, int row, int32_t *sums, int nblocks) {
  const uint8_t *pa = a + (long)4 * row * w, *pb = b + (long)4 * row * w;
  int z = 0;
  const int full = (w >> 2) < nblocks ? (w >> 2) : nblocks;
  for (; z + 2 <= full; z += 2) {
    /* 8 columns x 4 rows -> 2 blocks */
    v128_t s1 = wasm_i16x8_splat(0), s2 = s1, ss = wasm_i32x4_splat(0), sp = ss;
    for (int y = 0; y < 4; y++) {
      v128_t va = wasm_u16x8_load8x8(pa + (long)y * w + 4 * z), vb = wasm_u16x8_load8x8(pb + (long)y * w + 4 * z);
      s1 = wasm_i16x8_add(s1, va);
      s2 = wasm_i16x8_add(s2, vb);
      ss = wasm_i32x4_add(ss, wasm_i32x4_add(wasm_i32x4_dot_i16x8(va, va), wasm_i32x4_dot_i16x8(vb, vb)));
      sp = wasm_i32x4_add(sp, wasm_i32x4_dot_i16x8(va, vb));
    }
    v128_t p1 = wasm_u32x4_extadd_pairwise_u16x8(s1), p2 = wasm_u32x4_extadd_pairwise_u16x8(s2);
    int32_t *o = sums + 4 * z;
    o[0] = wasm_i32x4_extract_lane(p1, 0) + wasm_i32x4_extract_lane(p1, 1);
    o[1] = wasm_i32x4_extract_lane(p2, 0) + wasm_i32x4_extract_lane(p2, 1);
    o[2] = wasm_i32x4_extract_lane(ss, 0) + wasm_i32x4_extract_lane(ss, 1);
    o[3] = wasm_i32x4_extract_lane(sp, 0) + wasm_i32x4_extract_lane(sp, 1);
    o[4] = wasm_i32x4_extract_lane(p1, 2) + wasm_i32x4_extract_lane(p1, 3);
    o[5] = wasm_i32x4_extract_lane(p2, 2) + wasm_i32x4_extract_lane(p2, 3);
    o[6] = wasm_i32x4_extract_lane(ss, 2) + wasm_i32x4_extract_lane(ss, 3);
    o[7] = wasm_i32x4_extract_lane(sp, 2) + wasm_i32x4_extract_lane(sp, 3);
  }
  for (; z < nblocks; z++) {
    int32_t s1 = 0, s2 = 0, ss = 0, sp = 0;
    for (int y = 0; y < 4; y++) {
      for (int x = 0; x < 4; x++) {
        int col = 4 * z + x;
        if (col >= w) col = w - 1;
        int32_t va = pa[(long)y * w + col], vb = pb[(long)y * w + col];
        s1 += va;
        s2 += vb;
        ss += va * va + vb * vb;
        sp += va * vb;
      }
    }
    int32_t *o = sums + 4 * z;
    o[0] = s1;
    o[1] = s2;
    o[2] = ss;
    o[3] = sp;
  }
}

static float ff_end1(int32_t s1, int32_t s2, int32_t ss, int32_t s12) {
  const int32_t ssim_c1 = 416;    /* (int)(.01*.01*255*255*64 + .5) */
  const int32_t ssim_c2 = 235963; /* (int)(.03*.03*255*255*64*63 + .5) */
  int32_t vars = ss * 64 - s1 * s1 - s2 * s2;
  int32_t covar = s12 * 64 - s1 * s2;
  float num = (float)(2 * s1 * s2 + ssim_c1) * (float)(2 * covar + ssim_c2);
  float den = (float)(s1 * s1 + s2 * s2 + ssim_c1) * (float)(vars + ssim_c2);
  return num / den;
}

/* ff_ssim_end_line_sse4: four float lanes; the tail group is computed in
 * full (over-reading the line buffers) and the extra windows subtracted
 * again through the same byte shifts as the assembly. */
static float ff_end_line(const int32_t *sum0, const int32_t *sum1, int w) {
  float l0 = 0, l1 = 0, l2 = 0, l3 = 0, v[4] = {0, 0, 0, 0};
  int i = 0, left = w;
  do {
    for (int k = 0; k < 4; k++) {
      const int32_t *p0 = sum0 + 4 * (i + k), *p1 = sum1 + 4 * (i + k);
      v[k] = ff_end1(p0[0] + p0[4] + p1[0] + p1[4], p0[1] + p0[5] + p1[1] + p1[5], p0[2] + p0[6] + p1[2] + p1[6],
                     p0[3] + p0[7] + p1[3] + p1[7]);
    }
    l0 += v[0];
    l1 += v[1];
    l2 += v[2];
    l3 += v[3];
    i += 4;
    left -= 4;
  } while (left > 0);
  if (left != 0) {
    int valid = left + 4;
    float m0 = v[0], m1 = v[1], m2 = v[2], m3 = v[3];
    if (valid & 2) { m0 = m2; m1 = m3; m2 = 0; m3 = 0; }
    if (valid & 1) { m0 = m1; m1 = m2; m2 = m3; m3 = 0; }
    l0 -= m0;
    l1 -= m1;
    l2 -= m2;
    l3 -= m3;
  }
  return (l1 + l3) + (l0 + l2);
}

/*
 * ssim_plane() of vf_ssim.c. temp is the filter's line-buffer pair, laid out
 * as FFmpeg lays it (2 * SUM_LEN(luma width) records of 4 int32) and kept by
 * the caller across planes and frames: the over-read windows see whatever an
 * earlier plane or frame left there, and that changes the float rounding.
 */
EXPORT(ssim_ffmpeg_plane)
float ssim_ffmpeg_plane(const uint8_t *a, const uint8_t *b, int width, int height, int32_t *temp) {
  int32_t *sum0 = temp, *sum1 = temp + 4 * ((width >> 2) + 3);
  const int w4 = width >> 2, h4 = height >> 2;
  const int written = (w4 + 1) & ~1;
  float ssim = 0.0f;
  int z = 0;
  for (int y = 1; y < h4; y++) {
    for (; z <= y; z++) {
      int32_t *t = sum0;
      sum0 = sum1;
      sum1 = t;
      ff_4x4_line(a, b, width, z, sum0, written);
    }
    ssim += ff_end_line(sum0, sum1, w4 - 1);
  }
  return ssim / (float)((h4 - 1) * (w4 - 1));
}

/* ------------------------------------------------------------------------ */
/* Sample differences: sum |a-b| and sum (a-b)^2, exact.                      */
/* ------------------------------------------------------------------------ */

EXPORT(diff_stats)
void diff_stats(const uint8_t *a, const uint8_t *b, int n, double *out) {
  double sad = 0, sse = 0;
  int j = 0;
  while (j + 16 <= n) {
    /* i32 lanes hold at most 4096 * 2 * 2 * 65025 < 2^31 before flushing */
    int end = j + 16 * 4096;
    if (end > n) end = n;
    v128_t vsad = wasm_i32x4_splat(0), vsse = vsad;
    for (; j + 16 <= end; j += 16) {
      v128_t va = wasm_v128_load(a + j), vb = wasm_v128_load(b + j);
      v128_t dl = wasm_i16x8_sub(wasm_u16x8_extend_low_u8x16(va), wasm_u16x8_extend_low_u8x16(vb));
      v128_t dh = wasm_i16x8_sub(wasm_u16x8_extend_high_u8x16(va), wasm_u16x8_extend_high_u8x16(vb));
      vsse = wasm_i32x4_add(vsse, wasm_i32x4_add(wasm_i32x4_dot_i16x8(dl, dl), wasm_i32x4_dot_i16x8(dh, dh)));
      v128_t ad = wasm_i16x8_add(wasm_i16x8_abs(dl), wasm_i16x8_abs(dh));
      vsad = wasm_i32x4_add(vsad, wasm_u32x4_extadd_pairwise_u16x8(ad));
    }
    sad += (double)wasm_i32x4_extract_lane(vsad, 0) + (double)wasm_i32x4_extract_lane(vsad, 1) +
           (double)wasm_i32x4_extract_lane(vsad, 2) + (double)wasm_i32x4_extract_lane(vsad, 3);
    sse += (double)wasm_i32x4_extract_lane(vsse, 0) + (double)wasm_i32x4_extract_lane(vsse, 1) +
           (double)wasm_i32x4_extract_lane(vsse, 2) + (double)wasm_i32x4_extract_lane(vsse, 3);
  }
  for (; j < n; j++) {
    int d = (int)a[j] - (int)b[j];
    sad += d < 0 ? -d : d;
    sse += d * d;
  }
  out[0] = sad;
  out[1] = sse;
}
