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
 *  - Gaussian SSIM works in deterministic float32 on exact integer maps
 *    centred where cancellation would hurt (see ssim_gauss); its error
 *    against scikit-image's float64 stays under 1e-6 (tolerance 1e-5).
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

/* SSIM's stabilising constants (Wang et al. 2004), written once as their
 * formula: C1 = (K1 L)^2, C2 = (K2 L)^2 with L the 8-bit data range. Each
 * kernel scales them to its own sums (FFmpeg: 64 and 64*63; 7x7: N^2 and N(N-1)). */
#define SSIM_K1 0.01
#define SSIM_K2 0.03
#define SSIM_L 255
#define SSIM_C1 ((SSIM_K1 * SSIM_L) * (SSIM_K1 * SSIM_L))
#define SSIM_C2 ((SSIM_K2 * SSIM_L) * (SSIM_K2 * SSIM_L))

/* ------------------------------------------------------------------------ */
/* Gaussian SSIM (Wang et al. 2004), 11x11, sigma 1.5, valid region only.    */
/* ------------------------------------------------------------------------ */

/*
 * Deterministic float32 (f32x4, no fused multiply-add: the same bits on every
 * CPU). Plain float32 moments (E[x^2] - E[x]^2) cancel catastrophically; what
 * keeps the error under 1e-6 of the float64 result is what is filtered:
 *  - per row, four maps that are exact integers in float32: A = a-128,
 *    D = a-b, D*D and (a-128)(b-128), none above 65025 in magnitude;
 *  - the means are mu_a = 128 + G*A and mu_b = mu_a - G*D, and
 *    sigma_a^2 + sigma_b^2 = 2 sigma_ab + var(d) with var(d) = G*(D*D) - (G*D)^2
 *    taken from the difference map, which is small and exact exactly where
 *    the pictures agree (identical planes give D = 0 and SSIM exactly 1);
 *  - every 11-tap filter adds its small outer taps first (filtering G*A
 *    around the centre value, c + sum_k t_k((l_k - c) + (r_k - c)), gave the
 *    same results on flat planes, 1.6e-7 against 1.8e-7 worst on the goldens,
 *    and was 12% slower: not used);
 *  - per-pixel SSIM values are summed in float32 over 16 vectors (64 pixels),
 *    then in float64.
 */

#define GR 5            /* radius: int(3.5 * 1.5 + 0.5), as scipy.ndimage */
#define GT (2 * GR + 1) /* taps */
#define GRING (GT + 3)  /* 14 filtered rows held: the vertical pass makes 4 output rows at a time */
#define GAUSS_VALID(w) ((w) - 2 * GR)
#define GAUSS_ROW_STRIDE(w) (((w) + 16 + 3) & ~3) /* floats of one row map: the horizontal pass reads up to 15 past a group of 4 */
#define GAUSS_OUT_STRIDE(w) ((GAUSS_VALID(w) + 3) & ~3)

/* Floats: 4 row maps, GRING rows of 4 filtered maps, 4 output rows of 4 maps. */
EXPORT(ssim_gauss_scratch_bytes)
uint32_t ssim_gauss_scratch_bytes(int w) {
  return 4u * (uint32_t)(4 * GAUSS_ROW_STRIDE(w) + (GRING + 4) * 4 * GAUSS_OUT_STRIDE(w));
}

typedef struct {
  v128_t t0, t1, t2, t3, t4, t5;
} GaussTaps;

#define INLINE static inline __attribute__((always_inline))

/* Symmetric 11-tap sum around c, outer (small) taps first. */
INLINE v128_t gauss_sym(const GaussTaps *k, v128_t l5, v128_t l4, v128_t l3, v128_t l2, v128_t l1, v128_t c, v128_t r1, v128_t r2, v128_t r3,
                        v128_t r4, v128_t r5) {
  v128_t acc = wasm_f32x4_mul(k->t5, wasm_f32x4_add(l5, r5));
  acc = wasm_f32x4_add(acc, wasm_f32x4_mul(k->t4, wasm_f32x4_add(l4, r4)));
  acc = wasm_f32x4_add(acc, wasm_f32x4_mul(k->t3, wasm_f32x4_add(l3, r3)));
  acc = wasm_f32x4_add(acc, wasm_f32x4_mul(k->t2, wasm_f32x4_add(l2, r2)));
  acc = wasm_f32x4_add(acc, wasm_f32x4_mul(k->t1, wasm_f32x4_add(l1, r1)));
  return wasm_f32x4_add(acc, wasm_f32x4_mul(k->t0, c));
}

#define SH32(p, q, o) wasm_i32x4_shuffle(p, q, (o), (o) + 1, (o) + 2, (o) + 3)

/* Horizontal pass of one row map, 4 outputs a step: one aligned load, the
 * 11 windows shuffled out of the 4 vectors in[x .. x+15]. */
INLINE void gauss_row(const float *in, float *out, int nvp, const GaussTaps *k) {
  v128_t p0 = wasm_v128_load(in), p1 = wasm_v128_load(in + 4), p2 = wasm_v128_load(in + 8);
  for (int x = 0; x < nvp; x += 4) {
    v128_t p3 = wasm_v128_load(in + x + 12);
    wasm_v128_store(out + x, gauss_sym(k, p0, SH32(p0, p1, 1), SH32(p0, p1, 2), SH32(p0, p1, 3), p1, SH32(p1, p2, 1), SH32(p1, p2, 2),
                                       SH32(p1, p2, 3), p2, SH32(p2, p3, 1), SH32(p2, p3, 2)));
    p0 = p1;
    p1 = p2;
    p2 = p3;
  }
}

/* Vertical pass of one map: 4 output rows from the 14 rows r[0..13]
 * (output j from r[j .. j+10]), or 1 from r[0..10]. */
INLINE void gauss_cols4(const float *const *r, float *const *o, int nvp, const GaussTaps *k) {
  for (int x = 0; x < nvp; x += 4) {
    v128_t l[GRING];
    for (int i = 0; i < GRING; i++) l[i] = wasm_v128_load(r[i] + x);
    for (int j = 0; j < 4; j++) {
      wasm_v128_store(o[j] + x, gauss_sym(k, l[j], l[j + 1], l[j + 2], l[j + 3], l[j + 4], l[j + 5], l[j + 6], l[j + 7], l[j + 8], l[j + 9],
                                          l[j + 10]));
    }
  }
}

INLINE void gauss_cols1(const float *const *r, float *o, int nvp, const GaussTaps *k) {
  for (int x = 0; x < nvp; x += 4) {
    v128_t l[GT];
    for (int i = 0; i < GT; i++) l[i] = wasm_v128_load(r[i] + x);
    wasm_v128_store(o + x, gauss_sym(k, l[0], l[1], l[2], l[3], l[4], l[5], l[6], l[7], l[8], l[9], l[10]));
  }
}

/* Sum of the SSIM map over one output row from the filtered maps G*A, G*D, G*(D*D), G*(AB). */
static double gauss_ssim_row(const float *ma, const float *md, const float *mdd, const float *mp, int nv) {
  const v128_t c1 = wasm_f32x4_splat((float)SSIM_C1), c2 = wasm_f32x4_splat((float)SSIM_C2), mid = wasm_f32x4_splat(128.0f);
  const v128_t lanes = wasm_i32x4_make(0, 1, 2, 3);
  v128_t acc = wasm_f32x4_splat(0.0f), total = wasm_f64x2_splat(0.0);
  int n = 0;
  for (int x = 0; x < nv; x += 4) {
    v128_t A = wasm_v128_load(ma + x), D = wasm_v128_load(md + x), DD = wasm_v128_load(mdd + x), P = wasm_v128_load(mp + x);
    v128_t ua = wasm_f32x4_add(A, mid), ub = wasm_f32x4_sub(ua, D);
    v128_t d2 = wasm_f32x4_mul(D, D);
    v128_t sab = wasm_f32x4_sub(P, wasm_f32x4_mul(A, wasm_f32x4_sub(A, D)));
    v128_t vd = wasm_f32x4_sub(DD, d2);
    v128_t n1 = wasm_f32x4_add(wasm_f32x4_mul(wasm_f32x4_add(ua, ua), ub), c1);
    v128_t n2 = wasm_f32x4_add(wasm_f32x4_add(sab, sab), c2);
    v128_t s = wasm_f32x4_div(wasm_f32x4_mul(n1, n2), wasm_f32x4_mul(wasm_f32x4_add(n1, d2), wasm_f32x4_add(n2, vd)));
    if (x + 4 > nv) s = wasm_v128_and(s, wasm_i32x4_lt(lanes, wasm_i32x4_splat(nv - x)));
    acc = wasm_f32x4_add(acc, s);
    if (++n == 16) {
      total = wasm_f64x2_add(total, wasm_f64x2_promote_low_f32x4(acc));
      total = wasm_f64x2_add(total, wasm_f64x2_promote_low_f32x4(wasm_i32x4_shuffle(acc, acc, 2, 3, 2, 3)));
      acc = wasm_f32x4_splat(0.0f);
      n = 0;
    }
  }
  total = wasm_f64x2_add(total, wasm_f64x2_promote_low_f32x4(acc));
  total = wasm_f64x2_add(total, wasm_f64x2_promote_low_f32x4(wasm_i32x4_shuffle(acc, acc, 2, 3, 2, 3)));
  return wasm_f64x2_extract_lane(total, 0) + wasm_f64x2_extract_lane(total, 1);
}

/* One row's exact integer maps. */
static void gauss_maps(const uint8_t *pa, const uint8_t *pb, int w, float *mA, float *mD, float *mDD, float *mP) {
  const v128_t mid = wasm_i16x8_splat(128);
  int x = 0;
  for (; x + 8 <= w; x += 8) {
    v128_t va = wasm_u16x8_load8x8(pa + x), vb = wasm_u16x8_load8x8(pb + x);
    v128_t A = wasm_i16x8_sub(va, mid), B = wasm_i16x8_sub(vb, mid), D = wasm_i16x8_sub(va, vb);
    wasm_v128_store(mA + x, wasm_f32x4_convert_i32x4(wasm_i32x4_extend_low_i16x8(A)));
    wasm_v128_store(mA + x + 4, wasm_f32x4_convert_i32x4(wasm_i32x4_extend_high_i16x8(A)));
    wasm_v128_store(mD + x, wasm_f32x4_convert_i32x4(wasm_i32x4_extend_low_i16x8(D)));
    wasm_v128_store(mD + x + 4, wasm_f32x4_convert_i32x4(wasm_i32x4_extend_high_i16x8(D)));
    wasm_v128_store(mDD + x, wasm_f32x4_convert_i32x4(wasm_i32x4_extmul_low_i16x8(D, D)));
    wasm_v128_store(mDD + x + 4, wasm_f32x4_convert_i32x4(wasm_i32x4_extmul_high_i16x8(D, D)));
    wasm_v128_store(mP + x, wasm_f32x4_convert_i32x4(wasm_i32x4_extmul_low_i16x8(A, B)));
    wasm_v128_store(mP + x + 4, wasm_f32x4_convert_i32x4(wasm_i32x4_extmul_high_i16x8(A, B)));
  }
  for (; x < w; x++) {
    int A = (int)pa[x] - 128, B = (int)pb[x] - 128, D = (int)pa[x] - (int)pb[x];
    mA[x] = (float)A;
    mD[x] = (float)D;
    mDD[x] = (float)(D * D);
    mP[x] = (float)(A * B);
  }
}

/*
 * Mean SSIM over the windows that lie fully inside the w x h plane.
 * taps: t[0..5] (centre first) of the normalised 1-D kernel, float64 (used
 * as float32). scratch: ssim_gauss_scratch_bytes(w), 16-aligned.
 */
EXPORT(ssim_gauss)
double ssim_gauss(const uint8_t *a, const uint8_t *b, int w, int h, const double *t, float *scratch) {
  const int nv = GAUSS_VALID(w), hv = h - 2 * GR;
  const int wp = GAUSS_ROW_STRIDE(w), nvp = GAUSS_OUT_STRIDE(w);
  float *maps = scratch;                   /* [4 maps][wp]: one input row */
  float *ring = maps + 4 * wp;             /* [GRING slots][4 maps][nvp]: horizontally filtered rows */
  float *vo = ring + GRING * 4 * nvp;      /* [4 rows][4 maps][nvp]: vertically filtered */
  const GaussTaps k = {wasm_f32x4_splat((float)t[0]), wasm_f32x4_splat((float)t[1]), wasm_f32x4_splat((float)t[2]),
                       wasm_f32x4_splat((float)t[3]), wasm_f32x4_splat((float)t[4]), wasm_f32x4_splat((float)t[5])};
  /* The padding past w only feeds output lanes past nv, which are never summed; zeroed so they stay finite. */
  for (int m = 0; m < 4; m++)
    for (int x = w; x < wp; x++) maps[m * wp + x] = 0.0f;

  double total = 0.0;
  int done = 0; /* output rows summed: output row j reads filtered rows j .. j+10 */
  for (int y = 0; y < h; y++) {
    gauss_maps(a + (long)y * w, b + (long)y * w, w, maps, maps + wp, maps + 2 * wp, maps + 3 * wp);
    float *slot = ring + (long)(y % GRING) * 4 * nvp;
    for (int m = 0; m < 4; m++) gauss_row(maps + m * wp, slot + m * nvp, nvp, &k);
    if (y - done != GRING - 1) continue;
    for (int m = 0; m < 4; m++) {
      const float *r[GRING];
      float *o[4];
      for (int i = 0; i < GRING; i++) r[i] = ring + (long)((done + i) % GRING) * 4 * nvp + (long)m * nvp;
      for (int j = 0; j < 4; j++) o[j] = vo + (long)j * 4 * nvp + (long)m * nvp;
      gauss_cols4(r, o, nvp, &k);
    }
    for (int j = 0; j < 4; j++) {
      const float *o = vo + (long)j * 4 * nvp;
      total += gauss_ssim_row(o, o + nvp, o + 2 * nvp, o + 3 * nvp, nv);
    }
    done += 4;
  }
  /* The last hv mod 4 rows, one at a time: their inputs are among the last GRING rows. */
  for (; done < hv; done++) {
    for (int m = 0; m < 4; m++) {
      const float *r[GT];
      for (int i = 0; i < GT; i++) r[i] = ring + (long)((done + i) % GRING) * 4 * nvp + (long)m * nvp;
      gauss_cols1(r, vo + (long)m * nvp, nvp, &k);
    }
    total += gauss_ssim_row(vo, vo + nvp, vo + 2 * nvp, vo + 3 * nvp, nv);
  }
  return total / ((double)nv * (double)hv);
}

/* ------------------------------------------------------------------------ */
/* Uniform 7x7 SSIM with sample covariance (scikit-image defaults).          */
/* ------------------------------------------------------------------------ */

#define BW 7
#define BN (BW * BW)

#define BOX_STRIDE(cols) (((cols) + 8 + 7) & ~7) /* vertical sums per row, rounded up past the last group of 8 */

/* Two int16 and two int32 vertical-sum rows, 16 bytes of alignment slack. */
EXPORT(ssim_box7_scratch_bytes)
uint32_t ssim_box7_scratch_bytes(int cols) { return (uint32_t)(2 * 2 * BOX_STRIDE(cols) + 2 * 4 * BOX_STRIDE(cols) + 16); }

#define IL_LO16(p, q) wasm_i16x8_shuffle(p, q, 0, 8, 1, 9, 2, 10, 3, 11)
#define IL_HI16(p, q) wasm_i16x8_shuffle(p, q, 4, 12, 5, 13, 6, 14, 7, 15)

/* Adds the maps of row (na, nb) to the vertical sums and, when oa is given,
 * removes those of row (oa, ob). a and b sums (at most 7 * 255) fit int16;
 * vs holds N (a^2 + b^2) and vp 2N ab (N = 49), already scaled as the SSIM
 * end needs them (int32: 7 * 98 * 65025 per column, 7 times that per window).
 * Both are dot products of interleaved new/old samples, the scale folded into
 * the int16 factors (98 * 255 < 2^15): N(an^2 - ao^2) = dot((an, ao), (N an, -N ao))
 * and 2N(an bn - ao bo) = dot((an, ao), (2N bn, -2N bo)). */
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
    const v128_t n = wasm_i16x8_splat(BN), mn = wasm_i16x8_splat(-BN), n2 = wasm_i16x8_splat(2 * BN), mn2 = wasm_i16x8_splat(-2 * BN);
    v128_t an49 = wasm_i16x8_mul(an, n), ao49 = wasm_i16x8_mul(ao, mn), bn49 = wasm_i16x8_mul(bn, n), bo49 = wasm_i16x8_mul(bo, mn);
    v128_t bn98 = wasm_i16x8_mul(bn, n2), bo98 = wasm_i16x8_mul(bo, mn2);
    v128_t xl = IL_LO16(an, ao), xh = IL_HI16(an, ao), yl = IL_LO16(bn, bo), yh = IL_HI16(bn, bo);
    v128_t sl = wasm_i32x4_add(wasm_i32x4_dot_i16x8(xl, IL_LO16(an49, ao49)), wasm_i32x4_dot_i16x8(yl, IL_LO16(bn49, bo49)));
    v128_t sh = wasm_i32x4_add(wasm_i32x4_dot_i16x8(xh, IL_HI16(an49, ao49)), wasm_i32x4_dot_i16x8(yh, IL_HI16(bn49, bo49)));
    wasm_v128_store(vs + j, wasm_i32x4_add(wasm_v128_load(vs + j), sl));
    wasm_v128_store(vs + j + 4, wasm_i32x4_add(wasm_v128_load(vs + j + 4), sh));
    wasm_v128_store(vp + j, wasm_i32x4_add(wasm_v128_load(vp + j), wasm_i32x4_dot_i16x8(xl, IL_LO16(bn98, bo98))));
    wasm_v128_store(vp + j + 4, wasm_i32x4_add(wasm_v128_load(vp + j + 4), wasm_i32x4_dot_i16x8(xh, IL_HI16(bn98, bo98))));
  }
  for (; j < n; j++) {
    int32_t xa = na[j], xb = nb[j], ya = oa ? oa[j] : 0, yb = ob ? ob[j] : 0;
    va[j] = (int16_t)(va[j] + xa - ya);
    vb[j] = (int16_t)(vb[j] + xb - yb);
    vs[j] += BN * ((xa * xa + xb * xb) - (ya * ya + yb * yb));
    vp[j] += 2 * BN * (xa * xb - ya * yb);
  }
}

/* Four windows from exact integer sums: q = sa^2 + sb^2, tt2 = 2 sa sb (from
 * dot products), ss = N sum(a^2 + b^2) and sp = 2N sum(ab); four SSIM values
 * into two f64x2 accumulators. */
INLINE void box_end4(v128_t q, v128_t tt2, v128_t ss, v128_t sp, v128_t c1v, v128_t c2v, v128_t *accl, v128_t *acch) {
  v128_t a1 = wasm_f32x4_add(wasm_f32x4_convert_i32x4(tt2), c1v);
  v128_t b1 = wasm_f32x4_add(wasm_f32x4_convert_i32x4(q), c1v);
  /* 2 (N sum(ab) - sa sb) and N sum(a^2 + b^2) - q, exact: at most 2 * 49 * 49 * 65025 < 2^31 */
  v128_t a2 = wasm_f32x4_add(wasm_f32x4_convert_i32x4(wasm_i32x4_sub(sp, tt2)), c2v);
  v128_t b2 = wasm_f32x4_add(wasm_f32x4_convert_i32x4(wasm_i32x4_sub(ss, q)), c2v);
  v128_t s = wasm_f32x4_div(wasm_f32x4_mul(a1, a2), wasm_f32x4_mul(b1, b2));
  *accl = wasm_f64x2_add(*accl, wasm_f64x2_promote_low_f32x4(s));
  *acch = wasm_f64x2_add(*acch, wasm_f64x2_promote_low_f32x4(wasm_i32x4_shuffle(s, s, 2, 3, 2, 3)));
}

/* Eight windows from their int16 sums sa, sb: sa^2 + sb^2 = dot((sa, sb), (sa, sb))
 * and 2 sa sb = dot((sa, sb), (sb, sa)). */
INLINE void box_ssim8(v128_t sa, v128_t sb, v128_t ssl, v128_t ssh, v128_t spl, v128_t sph, v128_t c1v, v128_t c2v, v128_t *accl,
                      v128_t *acch) {
  v128_t lo = IL_LO16(sa, sb), hi = IL_HI16(sa, sb);
  v128_t lox = wasm_i16x8_shuffle(lo, lo, 1, 0, 3, 2, 5, 4, 7, 6), hix = wasm_i16x8_shuffle(hi, hi, 1, 0, 3, 2, 5, 4, 7, 6);
  box_end4(wasm_i32x4_dot_i16x8(lo, lo), wasm_i32x4_dot_i16x8(lo, lox), ssl, spl, c1v, c2v, accl, acch);
  box_end4(wasm_i32x4_dot_i16x8(hi, hi), wasm_i32x4_dot_i16x8(hi, hix), ssh, sph, c1v, c2v, accl, acch);
}

/* sum_{k<7} v[j + k*step] for 4 int32 lanes, as a tree: 6 adds, 7 loads.
 * (Shuffling the taps out of aligned loads measured no faster here.) */
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

/* The windows past the last group of 8, one at a time, added in order to `row`. */
static double box_tail(double row, const int16_t *va, const int16_t *vb, const int32_t *vs, const int32_t *vp, int j, int nv, int step) {
  const float c1 = (float)(SSIM_C1 * BN * BN), c2 = (float)(SSIM_C2 * BN * (BN - 1));
  for (; j < nv; j++) {
    int32_t sa = 0, sb = 0, ss = 0, sp = 0;
    for (int k = 0; k < BW; k++) {
      sa += va[j + k * step];
      sb += vb[j + k * step];
      ss += vs[j + k * step];
      sp += vp[j + k * step];
    }
    int32_t tt = sa * sb, q = sa * sa + sb * sb;
    float a1 = (float)(tt + tt) + c1, b1 = (float)q + c1;
    float a2 = (float)(sp - (tt + tt)) + c2, b2 = (float)(ss - q) + c2;
    row += (double)((a1 * a2) / (b1 * b2));
  }
  return row;
}

/* One output row: the sum of SSIM over its nv windows, taps `step` apart. */
static double box_row(const int16_t *va, const int16_t *vb, const int32_t *vs, const int32_t *vp, int nv, int step, v128_t c1v, v128_t c2v) {
  v128_t accl = wasm_f64x2_splat(0.0), acch = accl;
  int j = 0;
  for (; j + 8 <= nv; j += 8) {
    box_ssim8(box7_i16(va, j, step), box7_i16(vb, j, step), box7_i32(vs, j, step), box7_i32(vs, j + 4, step), box7_i32(vp, j, step),
              box7_i32(vp, j + 4, step), c1v, c2v, &accl, &acch);
  }
  accl = wasm_f64x2_add(accl, acch);
  return box_tail(wasm_f64x2_extract_lane(accl, 0) + wasm_f64x2_extract_lane(accl, 1), va, vb, vs, vp, j, nv, step);
}

/*
 * Sum over the valid region of the 7x7 uniform-window SSIM of an interleaved
 * plane: each row has `cols` samples and the window's horizontal taps are
 * `step` samples apart (3 for rgb24, so every channel is its own image).
 * Returns the sum; the caller divides by (cols - 6*step) * (h - 6).
 * scratch: ssim_box7_scratch_bytes(cols), 16-aligned.
 */
EXPORT(ssim_box7)
double ssim_box7(const uint8_t *a, const uint8_t *b, int cols, int h, int step, void *scratch) {
  const int nv = cols - (BW - 1) * step;
  const int stride = BOX_STRIDE(cols);
  int16_t *va = (int16_t *)scratch, *vb = va + stride;
  int32_t *vs = (int32_t *)(vb + stride), *vp = vs + stride;
  /* Constants scaled by N^2 (means) and N(N-1) (sample covariance): the window sums stay integers. */
  const float c1 = (float)(SSIM_C1 * BN * BN);
  const float c2 = (float)(SSIM_C2 * BN * (BN - 1));
  const v128_t c1v = wasm_f32x4_splat(c1), c2v = wasm_f32x4_splat(c2);
  for (int j = 0; j < stride; j++) va[j] = vb[j] = 0;
  for (int j = 0; j < stride; j++) vs[j] = vp[j] = 0;
  for (int r = 0; r < BW; r++) box_rows_update(va, vb, vs, vp, a + (long)r * cols, b + (long)r * cols, 0, 0, cols);

  double total = 0.0;
  for (int y = 0;; y++) {
    total += box_row(va, vb, vs, vp, nv, step, c1v, c2v);
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
 * (replicated here: FFmpeg reads whatever the frame buffer holds there).
 * Records are [sum a, sum b, sum a^2 + b^2, sum ab], exact integers: how
 * they are added up changes no bit. Four blocks (16 columns) at a time, then
 * pairs, then one at a time. */
static void ff_4x4_line(const uint8_t *a, const uint8_t *b, int w, int row, int32_t *sums, int nblocks) {
  const uint8_t *pa = a + (long)4 * row * w, *pb = b + (long)4 * row * w;
  int z = 0;
  const int full = (w >> 2) < nblocks ? (w >> 2) : nblocks;
  for (; z + 4 <= full; z += 4) {
    v128_t alo = wasm_i16x8_splat(0), ahi = alo, blo = alo, bhi = alo;
    v128_t sslo = wasm_i32x4_splat(0), sshi = sslo, splo = sslo, sphi = sslo;
    for (int y = 0; y < 4; y++) {
      v128_t va = wasm_v128_load(pa + (long)y * w + 4 * z), vb = wasm_v128_load(pb + (long)y * w + 4 * z);
      v128_t al = wasm_u16x8_extend_low_u8x16(va), ah = wasm_u16x8_extend_high_u8x16(va);
      v128_t bl = wasm_u16x8_extend_low_u8x16(vb), bh = wasm_u16x8_extend_high_u8x16(vb);
      alo = wasm_i16x8_add(alo, al);
      ahi = wasm_i16x8_add(ahi, ah);
      blo = wasm_i16x8_add(blo, bl);
      bhi = wasm_i16x8_add(bhi, bh);
      sslo = wasm_i32x4_add(sslo, wasm_i32x4_add(wasm_i32x4_dot_i16x8(al, al), wasm_i32x4_dot_i16x8(bl, bl)));
      sshi = wasm_i32x4_add(sshi, wasm_i32x4_add(wasm_i32x4_dot_i16x8(ah, ah), wasm_i32x4_dot_i16x8(bh, bh)));
      splo = wasm_i32x4_add(splo, wasm_i32x4_dot_i16x8(al, bl));
      sphi = wasm_i32x4_add(sphi, wasm_i32x4_dot_i16x8(ah, bh));
    }
    /* Column pairs -> blocks: lanes hold columns (0+1, 2+3, 4+5, 6+7) of each half. */
    v128_t pal = wasm_u32x4_extadd_pairwise_u16x8(alo), pah = wasm_u32x4_extadd_pairwise_u16x8(ahi);
    v128_t pbl = wasm_u32x4_extadd_pairwise_u16x8(blo), pbh = wasm_u32x4_extadd_pairwise_u16x8(bhi);
    v128_t s1 = wasm_i32x4_add(wasm_i32x4_shuffle(pal, pah, 0, 2, 4, 6), wasm_i32x4_shuffle(pal, pah, 1, 3, 5, 7));
    v128_t s2 = wasm_i32x4_add(wasm_i32x4_shuffle(pbl, pbh, 0, 2, 4, 6), wasm_i32x4_shuffle(pbl, pbh, 1, 3, 5, 7));
    v128_t ss = wasm_i32x4_add(wasm_i32x4_shuffle(sslo, sshi, 0, 2, 4, 6), wasm_i32x4_shuffle(sslo, sshi, 1, 3, 5, 7));
    v128_t sp = wasm_i32x4_add(wasm_i32x4_shuffle(splo, sphi, 0, 2, 4, 6), wasm_i32x4_shuffle(splo, sphi, 1, 3, 5, 7));
    /* Transposed into one record per block. */
    v128_t t0 = wasm_i32x4_shuffle(s1, s2, 0, 4, 1, 5), t1 = wasm_i32x4_shuffle(ss, sp, 0, 4, 1, 5);
    v128_t t2 = wasm_i32x4_shuffle(s1, s2, 2, 6, 3, 7), t3 = wasm_i32x4_shuffle(ss, sp, 2, 6, 3, 7);
    int32_t *o = sums + 4 * z;
    wasm_v128_store(o, wasm_i32x4_shuffle(t0, t1, 0, 1, 4, 5));
    wasm_v128_store(o + 4, wasm_i32x4_shuffle(t0, t1, 2, 3, 6, 7));
    wasm_v128_store(o + 8, wasm_i32x4_shuffle(t2, t3, 0, 1, 4, 5));
    wasm_v128_store(o + 12, wasm_i32x4_shuffle(t2, t3, 2, 3, 6, 7));
  }
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

/* vf_ssim.c's ssim_end1 for four windows at once, one per lane: the same
 * int32 arithmetic (no sum here comes near 2^31) and the same float32
 * conversions, products and quotient, so each lane gives the scalar's bits.
 * (int)(.01*.01*255*255*64 + .5) = 416 and (int)(.03*.03*255*255*64*63 + .5) = 235963 */
INLINE v128_t ff_end4(v128_t s1, v128_t s2, v128_t ss, v128_t s12) {
  const v128_t c1 = wasm_i32x4_splat((int32_t)(SSIM_K1 * SSIM_K1 * SSIM_L * SSIM_L * 64 + .5));
  const v128_t c2 = wasm_i32x4_splat((int32_t)(SSIM_K2 * SSIM_K2 * SSIM_L * SSIM_L * 64 * 63 + .5));
  v128_t s1s1 = wasm_i32x4_mul(s1, s1), s2s2 = wasm_i32x4_mul(s2, s2), s1s2 = wasm_i32x4_mul(s1, s2);
  v128_t vars = wasm_i32x4_sub(wasm_i32x4_sub(wasm_i32x4_shl(ss, 6), s1s1), s2s2);
  v128_t covar = wasm_i32x4_sub(wasm_i32x4_shl(s12, 6), s1s2);
  v128_t num = wasm_f32x4_mul(wasm_f32x4_convert_i32x4(wasm_i32x4_add(wasm_i32x4_add(s1s2, s1s2), c1)),
                              wasm_f32x4_convert_i32x4(wasm_i32x4_add(wasm_i32x4_add(covar, covar), c2)));
  v128_t den = wasm_f32x4_mul(wasm_f32x4_convert_i32x4(wasm_i32x4_add(wasm_i32x4_add(s1s1, s2s2), c1)),
                              wasm_f32x4_convert_i32x4(wasm_i32x4_add(vars, c2)));
  return wasm_f32x4_div(num, den);
}

/* ff_ssim_end_line_sse4: four float lanes; the tail group is computed in
 * full (over-reading the line buffers) and the extra windows subtracted
 * again through the same byte shifts as the assembly. Window i sums blocks
 * i and i+1 of both lines; lane k of a group is window i+k, its own float
 * accumulator, as the assembly's. */
static float ff_end_line(const int32_t *sum0, const int32_t *sum1, int w) {
  v128_t acc = wasm_f32x4_splat(0.0f), v = acc;
  int i = 0, left = w;
  v128_t lb = wasm_i32x4_add(wasm_v128_load(sum0), wasm_v128_load(sum1)); /* block i of both lines */
  do {
    v128_t b1 = wasm_i32x4_add(wasm_v128_load(sum0 + 4 * (i + 1)), wasm_v128_load(sum1 + 4 * (i + 1)));
    v128_t b2 = wasm_i32x4_add(wasm_v128_load(sum0 + 4 * (i + 2)), wasm_v128_load(sum1 + 4 * (i + 2)));
    v128_t b3 = wasm_i32x4_add(wasm_v128_load(sum0 + 4 * (i + 3)), wasm_v128_load(sum1 + 4 * (i + 3)));
    v128_t b4 = wasm_i32x4_add(wasm_v128_load(sum0 + 4 * (i + 4)), wasm_v128_load(sum1 + 4 * (i + 4)));
    /* Records [s1, s2, ss, s12] of windows i .. i+3, transposed to one vector per field. */
    v128_t w0 = wasm_i32x4_add(lb, b1), w1 = wasm_i32x4_add(b1, b2), w2 = wasm_i32x4_add(b2, b3), w3 = wasm_i32x4_add(b3, b4);
    v128_t t0 = wasm_i32x4_shuffle(w0, w1, 0, 4, 1, 5), t1 = wasm_i32x4_shuffle(w2, w3, 0, 4, 1, 5);
    v128_t t2 = wasm_i32x4_shuffle(w0, w1, 2, 6, 3, 7), t3 = wasm_i32x4_shuffle(w2, w3, 2, 6, 3, 7);
    v = ff_end4(wasm_i32x4_shuffle(t0, t1, 0, 1, 4, 5), wasm_i32x4_shuffle(t0, t1, 2, 3, 6, 7), wasm_i32x4_shuffle(t2, t3, 0, 1, 4, 5),
                wasm_i32x4_shuffle(t2, t3, 2, 3, 6, 7));
    acc = wasm_f32x4_add(acc, v);
    lb = b4;
    i += 4;
    left -= 4;
  } while (left > 0);
  float l0 = wasm_f32x4_extract_lane(acc, 0), l1 = wasm_f32x4_extract_lane(acc, 1), l2 = wasm_f32x4_extract_lane(acc, 2),
        l3 = wasm_f32x4_extract_lane(acc, 3);
  if (left != 0) {
    int valid = left + 4;
    float m0 = wasm_f32x4_extract_lane(v, 0), m1 = wasm_f32x4_extract_lane(v, 1), m2 = wasm_f32x4_extract_lane(v, 2),
          m3 = wasm_f32x4_extract_lane(v, 3);
    if (valid & 2) { m0 = m2; m1 = m3; m2 = 0; m3 = 0; }
    if (valid & 1) { m0 = m1; m1 = m2; m2 = m3; m3 = 0; }
    l0 -= m0;
    l1 -= m1;
    l2 -= m2;
    l3 -= m3;
  }
  return (l1 + l3) + (l0 + l2);
}

#define FF_SUM_LEN(w) (((w) >> 2) + 3) /* vf_ssim.c SUM_LEN: records of 4 int32 per line buffer */

/* Int32 count of the line-buffer pair for planes up to this width. */
EXPORT(ssim_ffmpeg_temp_ints)
uint32_t ssim_ffmpeg_temp_ints(int width) { return 2u * 4u * (uint32_t)FF_SUM_LEN(width); }

/*
 * ssim_plane() of vf_ssim.c. temp is the filter's line-buffer pair, laid out
 * as FFmpeg lays it (2 * SUM_LEN(luma width) records of 4 int32) and kept by
 * the caller across planes and frames: the over-read windows see whatever an
 * earlier plane or frame left there, and that changes the float rounding.
 */
EXPORT(ssim_ffmpeg_plane)
float ssim_ffmpeg_plane(const uint8_t *a, const uint8_t *b, int width, int height, int32_t *temp) {
  int32_t *sum0 = temp, *sum1 = temp + 4 * FF_SUM_LEN(width);
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

/* ------------------------------------------------------------------------ */
/* rgb24 from 8-bit planar YUV: libswscale's unscaled yuv2rgb, exactly.      */
/* ------------------------------------------------------------------------ */

/*
 * docs/metrics.md, "RGB conversion": the integer formula that FFmpeg's
 * default (unscaled, not accurate_rnd) converter computes on x86 (SSSE3),
 * which PyAV's frame.to_ndarray(format="rgb24") and `ffmpeg -pix_fmt rgb24`
 * use. For each pixel, Y there and U, V at (x >> 1, y >> vshift):
 *
 *   Y' = 8Y - yo, U' = 8U - 1024, V' = 8V - 1024, L = (Y' yc) >> 16
 *   R = clamp(L + ((V' vr) >> 16))
 *   G = clamp(L + ((U' ug) >> 16) + ((V' vg) >> 16))
 *   B = clamp(L + ((U' ub) >> 16))
 *
 * with >> a floor shift and clamp to 0..255. Each detail changes bytes if
 * missed: Y' is not clamped for Y < 16, the two G products are shifted
 * separately, and L is shifted on its own. The coefficients are FFmpeg's
 * 16-bit SIMD ones, round(8192 * c) of its inverse matrix (yc = 255/219 for
 * limited range, 1 for full). Same bytes on every CPU by construction: only
 * integer arithmetic, each step exact.
 */
#define YUV_RGB_TABLES 4
/* yc, yo, vr, ub, ug, vg; index = 2 * matrix (0 BT.601, 1 BT.709) + full range */
static const int16_t YUV_RGB[YUV_RGB_TABLES][6] = {
    {9539, 128, 13075, 16525, -3209, -6660}, /* BT.601 limited */
    {8192, 0, 11485, 14516, -2819, -5850},   /* BT.601 full */
    {9539, 128, 14686, 17305, -1747, -4366}, /* BT.709 limited */
    {8192, 0, 12901, 15201, -1534, -3835},   /* BT.709 full */
};

INLINE uint8_t clamp_u8(int x) { return (uint8_t)(x < 0 ? 0 : x > 255 ? 255 : x); }

/* (a * k) >> 16 of 8 int16 lanes, floor: the products of the even lanes come
 * from a dot product against (k, 0), those of the odd lanes against (0, k);
 * each 32-bit product's high half is the lane's result (it fits 16 bits). */
INLINE v128_t mulhi16(v128_t a, v128_t keven, v128_t kodd) {
  v128_t pe = wasm_i32x4_dot_i16x8(a, keven), po = wasm_i32x4_dot_i16x8(a, kodd);
  return wasm_v128_or(wasm_u32x4_shr(pe, 16), wasm_v128_and(po, wasm_i32x4_splat((int32_t)0xFFFF0000)));
}

typedef struct {
  v128_t yce, yco, vre, vro, ube, ubo, uge, ugo, vge, vgo, yo, c1024, lo8;
} YuvRgbConsts;

/* Swizzle masks for 16 pixels: byte 16q + b of the output is channel c = (16q + b) % 3 of pixel
 * p = (16q + b) / 3, and a channel's 16 bytes arrive as the even pixels then the odd ones (pixel p
 * at p / 2 + 8 (p & 1)). -128 zeroes a lane (wasm's index >= 16 and x86 pshufb's top bit alike),
 * so a constant mask lowers to one pshufb. */
#define Z -128
#define RGB_MASK_0R wasm_i8x16_const(0, Z, Z, 8, Z, Z, 1, Z, Z, 9, Z, Z, 2, Z, Z, 10)
#define RGB_MASK_0G wasm_i8x16_const(Z, 0, Z, Z, 8, Z, Z, 1, Z, Z, 9, Z, Z, 2, Z, Z)
#define RGB_MASK_0B wasm_i8x16_const(Z, Z, 0, Z, Z, 8, Z, Z, 1, Z, Z, 9, Z, Z, 2, Z)
#define RGB_MASK_1R wasm_i8x16_const(Z, Z, 3, Z, Z, 11, Z, Z, 4, Z, Z, 12, Z, Z, 5, Z)
#define RGB_MASK_1G wasm_i8x16_const(10, Z, Z, 3, Z, Z, 11, Z, Z, 4, Z, Z, 12, Z, Z, 5)
#define RGB_MASK_1B wasm_i8x16_const(Z, 10, Z, Z, 3, Z, Z, 11, Z, Z, 4, Z, Z, 12, Z, Z)
#define RGB_MASK_2R wasm_i8x16_const(Z, 13, Z, Z, 6, Z, Z, 14, Z, Z, 7, Z, Z, 15, Z, Z)
#define RGB_MASK_2G wasm_i8x16_const(Z, Z, 13, Z, Z, 6, Z, Z, 14, Z, Z, 7, Z, Z, 15, Z)
#define RGB_MASK_2B wasm_i8x16_const(5, Z, Z, 13, Z, Z, 6, Z, Z, 14, Z, Z, 7, Z, Z, 15)

INLINE v128_t rgb_pick(v128_t r, v128_t g, v128_t b, v128_t mr, v128_t mg, v128_t mb) {
  return wasm_v128_or(wasm_v128_or(wasm_i8x16_swizzle(r, mr), wasm_i8x16_swizzle(g, mg)), wasm_i8x16_swizzle(b, mb));
}

/* 16 pixels of one row: L from Y (split into even and odd pixels, which line up with the 8 chroma
 * samples), the chroma terms added, narrowed with unsigned saturation (the clamp: every sum fits
 * int16): R, G and B of the 16 pixels, the even pixels in lanes 0-7 and the odd ones in 8-15. */
INLINE void yuv_rgb16(const YuvRgbConsts *k, const uint8_t *yrow, v128_t rv, v128_t gc, v128_t bu, v128_t *r, v128_t *g, v128_t *b) {
  v128_t y16 = wasm_v128_load(yrow);
  v128_t ye = wasm_i16x8_sub(wasm_i16x8_shl(wasm_v128_and(y16, k->lo8), 3), k->yo);
  v128_t yo = wasm_i16x8_sub(wasm_i16x8_shl(wasm_u16x8_shr(y16, 8), 3), k->yo);
  v128_t le = mulhi16(ye, k->yce, k->yco), lo = mulhi16(yo, k->yce, k->yco);
  *r = wasm_u8x16_narrow_i16x8(wasm_i16x8_add(le, rv), wasm_i16x8_add(lo, rv));
  *g = wasm_u8x16_narrow_i16x8(wasm_i16x8_add(le, gc), wasm_i16x8_add(lo, gc));
  *b = wasm_u8x16_narrow_i16x8(wasm_i16x8_add(le, bu), wasm_i16x8_add(lo, bu));
}

/* The 16 pixels interleaved into 48 bytes of RGB. */
INLINE void rgb_store48(uint8_t *out, v128_t r, v128_t g, v128_t b) {
  wasm_v128_store(out, rgb_pick(r, g, b, RGB_MASK_0R, RGB_MASK_0G, RGB_MASK_0B));
  wasm_v128_store(out + 16, rgb_pick(r, g, b, RGB_MASK_1R, RGB_MASK_1G, RGB_MASK_1B));
  wasm_v128_store(out + 32, rgb_pick(r, g, b, RGB_MASK_2R, RGB_MASK_2G, RGB_MASK_2B));
}

/* The per-table constants of the converter, as 16-bit SIMD lanes. */
static int yuv_rgb_consts(int table, YuvRgbConsts *k, int *scalar) {
  if (table < 0 || table >= YUV_RGB_TABLES) return -1;
  const int16_t *t = YUV_RGB[table];
  const int yc = t[0], yo = t[1], vr = t[2], ub = t[3], ug = t[4], vg = t[5];
  for (int i = 0; i < 6; i++) scalar[i] = t[i];
  k->yce = wasm_i16x8_make(yc, 0, yc, 0, yc, 0, yc, 0);
  k->yco = wasm_i16x8_make(0, yc, 0, yc, 0, yc, 0, yc);
  k->vre = wasm_i16x8_make(vr, 0, vr, 0, vr, 0, vr, 0);
  k->vro = wasm_i16x8_make(0, vr, 0, vr, 0, vr, 0, vr);
  k->ube = wasm_i16x8_make(ub, 0, ub, 0, ub, 0, ub, 0);
  k->ubo = wasm_i16x8_make(0, ub, 0, ub, 0, ub, 0, ub);
  k->uge = wasm_i16x8_make(ug, 0, ug, 0, ug, 0, ug, 0);
  k->ugo = wasm_i16x8_make(0, ug, 0, ug, 0, ug, 0, ug);
  k->vge = wasm_i16x8_make(vg, 0, vg, 0, vg, 0, vg, 0);
  k->vgo = wasm_i16x8_make(0, vg, 0, vg, 0, vg, 0, vg);
  k->yo = wasm_i16x8_splat((int16_t)yo);
  k->c1024 = wasm_i16x8_splat(1024);
  k->lo8 = wasm_i16x8_splat(0xFF);
  return 0;
}

/* The chroma terms of 16 pixels (8 chroma samples): V for R, U and V for G, U for B. */
INLINE void yuv_chroma8(const YuvRgbConsts *k, const uint8_t *u, const uint8_t *v, v128_t *rv, v128_t *gc, v128_t *bu) {
  v128_t uu = wasm_i16x8_sub(wasm_i16x8_shl(wasm_u16x8_load8x8(u), 3), k->c1024);
  v128_t vv = wasm_i16x8_sub(wasm_i16x8_shl(wasm_u16x8_load8x8(v), 3), k->c1024);
  *rv = mulhi16(vv, k->vre, k->vro);
  *bu = mulhi16(uu, k->ube, k->ubo);
  *gc = wasm_i16x8_add(mulhi16(uu, k->uge, k->ugo), mulhi16(vv, k->vge, k->vgo));
}

/* One pixel in scalar code (the last w mod 16 of a row): the same formula. */
INLINE void yuv_rgb1(const int *t, int Y, int Ub, int Vb, uint8_t *px) {
  const int yc = t[0], yo = t[1], vr = t[2], ub = t[3], ug = t[4], vg = t[5];
  const int U = 8 * Ub - 1024, V = 8 * Vb - 1024;
  const int L = ((8 * Y - yo) * yc) >> 16;
  px[0] = clamp_u8(L + ((V * vr) >> 16));
  px[1] = clamp_u8(L + (((U * ug) >> 16) + ((V * vg) >> 16)));
  px[2] = clamp_u8(L + ((U * ub) >> 16));
}

/*
 * rgb24 (w * h * 3 bytes at out) from the planes y (w x h), u and v (cw
 * samples a row, one chroma row for every 1 << vshift luma rows): yuv420p
 * (vshift 1; h must be even, as FFmpeg requires for this converter) or
 * yuv422p (vshift 0). `table` is 2 * matrix + full_range (YUV_RGB above).
 * Returns 0, or -1 for arguments it does not cover (nothing written).
 */
EXPORT(yuv_rgb24)
int yuv_rgb24(const uint8_t *y, const uint8_t *u, const uint8_t *v, int w, int h, int cw, int vshift, int table, uint8_t *out) {
  if ((vshift != 0 && vshift != 1) || w <= 0 || h <= 0 || cw != (w + 1) / 2 || (h & vshift) != 0) return -1;
  YuvRgbConsts k;
  int t[6];
  if (yuv_rgb_consts(table, &k, t) != 0) return -1;
  const int rows = 1 << vshift, full = w & ~15;
  for (int cy = 0; cy < h >> vshift; cy++) {
    const uint8_t *ur = u + (long)cy * cw, *vrow = v + (long)cy * cw;
    const uint8_t *y0 = y + (long)(cy << vshift) * w;
    uint8_t *o0 = out + (long)(cy << vshift) * w * 3;
    for (int x = 0; x < full; x += 16) {
      v128_t rv, gc, bu;
      yuv_chroma8(&k, ur + x / 2, vrow + x / 2, &rv, &gc, &bu);
      for (int r = 0; r < rows; r++) {
        v128_t R, G, B;
        yuv_rgb16(&k, y0 + (long)r * w + x, rv, gc, bu, &R, &G, &B);
        rgb_store48(o0 + ((long)r * w + x) * 3, R, G, B);
      }
    }
    /* The last w mod 16 pixels of each row (an odd width's last column uses the last chroma sample). */
    for (int x = full; x < w; x++)
      for (int r = 0; r < rows; r++) yuv_rgb1(t, y0[(long)r * w + x], ur[x >> 1], vrow[x >> 1], o0 + ((long)r * w + x) * 3);
  }
  return 0;
}

/* sum |a - b| and sum (a - b)^2 of 16 bytes into 32-bit lanes (at most 4 * 65025 and 4 * 255 a lane per call). */
INLINE void diff16(v128_t a, v128_t b, v128_t *sad, v128_t *sse) {
  v128_t dl = wasm_i16x8_sub(wasm_u16x8_extend_low_u8x16(a), wasm_u16x8_extend_low_u8x16(b));
  v128_t dh = wasm_i16x8_sub(wasm_u16x8_extend_high_u8x16(a), wasm_u16x8_extend_high_u8x16(b));
  *sse = wasm_i32x4_add(*sse, wasm_i32x4_add(wasm_i32x4_dot_i16x8(dl, dl), wasm_i32x4_dot_i16x8(dh, dh)));
  *sad = wasm_i32x4_add(*sad, wasm_u32x4_extadd_pairwise_u16x8(wasm_i16x8_add(wasm_i16x8_abs(dl), wasm_i16x8_abs(dh))));
}

INLINE double lanes_sum(v128_t v) {
  return (double)wasm_i32x4_extract_lane(v, 0) + (double)wasm_i32x4_extract_lane(v, 1) + (double)wasm_i32x4_extract_lane(v, 2) +
         (double)wasm_i32x4_extract_lane(v, 3);
}

/*
 * Both frames' rgb24 and, in the same pass, diff_stats of the two rgb24
 * images (sum |a - b| and sum (a - b)^2 over every R, G, B sample, into
 * stats[0] and stats[1]): what yuv_rgb24 on each side and diff_stats on the
 * results give, the same exact integer sums, without writing and reading the
 * images again. The images are written only where asked (outa and outb
 * nonzero: a metric reads them); the pooled RGB PSNR and MAE need only the
 * sums. Returns 0, or -1 for arguments yuv_rgb24 refuses (nothing written).
 */
EXPORT(yuv_rgb24_pair)
int yuv_rgb24_pair(const uint8_t *ya, const uint8_t *ua, const uint8_t *va, const uint8_t *yb, const uint8_t *ub, const uint8_t *vb, int w, int h,
                   int cw, int vshift, int table, uint8_t *outa, uint8_t *outb, double *stats) {
  if ((vshift != 0 && vshift != 1) || w <= 0 || h <= 0 || cw != (w + 1) / 2 || (h & vshift) != 0) return -1;
  YuvRgbConsts k;
  int t[6];
  if (yuv_rgb_consts(table, &k, t) != 0) return -1;
  const int rows = 1 << vshift, full = w & ~15, store = outa != 0 && outb != 0;
  double sad = 0, sse = 0;
  for (int cy = 0; cy < h >> vshift; cy++) {
    const long crow = (long)cy * cw, yrow = (long)(cy << vshift) * w;
    /* 32-bit lanes take at most 2 * 3 * 4 * 65025 per 16 pixels: flushed every 256 groups. */
    v128_t vsad = wasm_i32x4_splat(0), vsse = vsad;
    int groups = 0;
    for (int x = 0; x < full; x += 16) {
      v128_t rva, gca, bua, rvb, gcb, bub;
      yuv_chroma8(&k, ua + crow + x / 2, va + crow + x / 2, &rva, &gca, &bua);
      yuv_chroma8(&k, ub + crow + x / 2, vb + crow + x / 2, &rvb, &gcb, &bub);
      for (int r = 0; r < rows; r++) {
        const long at = yrow + (long)r * w + x;
        v128_t Ra, Ga, Ba, Rb, Gb, Bb;
        yuv_rgb16(&k, ya + at, rva, gca, bua, &Ra, &Ga, &Ba);
        yuv_rgb16(&k, yb + at, rvb, gcb, bub, &Rb, &Gb, &Bb);
        if (store) {
          rgb_store48(outa + at * 3, Ra, Ga, Ba);
          rgb_store48(outb + at * 3, Rb, Gb, Bb);
        }
        diff16(Ra, Rb, &vsad, &vsse);
        diff16(Ga, Gb, &vsad, &vsse);
        diff16(Ba, Bb, &vsad, &vsse);
      }
      if (++groups == 256) {
        sad += lanes_sum(vsad);
        sse += lanes_sum(vsse);
        vsad = vsse = wasm_i32x4_splat(0);
        groups = 0;
      }
    }
    sad += lanes_sum(vsad);
    sse += lanes_sum(vsse);
    for (int x = full; x < w; x++) {
      for (int r = 0; r < rows; r++) {
        const long at = yrow + (long)r * w + x;
        uint8_t pa[3], pb[3];
        yuv_rgb1(t, ya[at], ua[crow + (x >> 1)], va[crow + (x >> 1)], store ? outa + at * 3 : pa);
        yuv_rgb1(t, yb[at], ub[crow + (x >> 1)], vb[crow + (x >> 1)], store ? outb + at * 3 : pb);
        for (int c = 0; c < 3; c++) {
          const int d = (int)(store ? outa[at * 3 + c] : pa[c]) - (int)(store ? outb[at * 3 + c] : pb[c]);
          sad += d < 0 ? -d : d;
          sse += d * d;
        }
      }
    }
  }
  stats[0] = sad;
  stats[1] = sse;
  return 0;
}

/* ------------------------------------------------------------------------ */
/* One clip's own frame figures (metrics/clip-video.ts): one pass per frame. */
/* ------------------------------------------------------------------------ */

/*
 * What the clip analysis needs of a frame's rgb24 image: its largest and
 * smallest sample (black: largest <= 3, white: smallest >= 252) and
 * sum |cur - prev| against the previous frame's image (adjacent MAE; a
 * duplicate is a sum of 0, so no squares are needed). stats[0] = largest,
 * stats[1] = smallest, stats[2] = the sum (0 when prev is 0: the first
 * frame). Exact integers, in any order of summation: the same figures as
 * scanning the image and diff_stats, in one read of each image.
 */

/* sum |a - b| of 16 bytes into 32-bit lanes (at most 4 * 255 a lane per call). */
INLINE v128_t sad16(v128_t acc, v128_t a, v128_t b) {
  v128_t d = wasm_i8x16_sub(wasm_u8x16_max(a, b), wasm_u8x16_min(a, b));
  return wasm_i32x4_add(acc, wasm_u32x4_extadd_pairwise_u16x8(wasm_u16x8_extadd_pairwise_u8x16(d)));
}

INLINE int u8_lanes_max(v128_t v) {
  v = wasm_u8x16_max(v, wasm_i8x16_shuffle(v, v, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7));
  v = wasm_u8x16_max(v, wasm_i8x16_shuffle(v, v, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3));
  v = wasm_u8x16_max(v, wasm_i8x16_shuffle(v, v, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1));
  v = wasm_u8x16_max(v, wasm_i8x16_shuffle(v, v, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0));
  return wasm_u8x16_extract_lane(v, 0);
}

INLINE int u8_lanes_min(v128_t v) {
  v = wasm_u8x16_min(v, wasm_i8x16_shuffle(v, v, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7));
  v = wasm_u8x16_min(v, wasm_i8x16_shuffle(v, v, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3));
  v = wasm_u8x16_min(v, wasm_i8x16_shuffle(v, v, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1));
  v = wasm_u8x16_min(v, wasm_i8x16_shuffle(v, v, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0));
  return wasm_u8x16_extract_lane(v, 0);
}

/* The scalar end of a pass: bytes [j, n) of an image already written. */
static void clip_tail(const uint8_t *img, const uint8_t *prev, long j, long n, int *hi, int *lo, double *sad) {
  for (; j < n; j++) {
    const int x = img[j];
    if (x > *hi) *hi = x;
    if (x < *lo) *lo = x;
    if (prev) {
      const int d = x - (int)prev[j];
      *sad += d < 0 ? -d : d;
    }
  }
}

/* The figures of an rgb24 image of n bytes already in memory (frames that carry ffmpeg's rgb24). */
EXPORT(clip_frame_rgb24)
void clip_frame_rgb24(const uint8_t *img, const uint8_t *prev, int n, double *stats) {
  v128_t vhi = wasm_i8x16_splat(0), vlo = wasm_i8x16_splat((int8_t)0xFF);
  double sad = 0;
  long j = 0;
  while (j + 16 <= n) {
    /* 32-bit lanes take at most 4 * 255 per 16 bytes: flushed every 65536 vectors. */
    long end = j + 16L * 65536;
    if (end > n) end = n;
    v128_t vsad = wasm_i32x4_splat(0);
    for (; j + 16 <= end; j += 16) {
      v128_t a = wasm_v128_load(img + j);
      vhi = wasm_u8x16_max(vhi, a);
      vlo = wasm_u8x16_min(vlo, a);
      if (prev) vsad = sad16(vsad, a, wasm_v128_load(prev + j));
    }
    sad += lanes_sum(vsad);
  }
  int hi = u8_lanes_max(vhi), lo = u8_lanes_min(vlo);
  clip_tail(img, prev, j, n, &hi, &lo, &sad);
  stats[0] = hi;
  stats[1] = lo;
  stats[2] = sad;
}

/* |a - b| of 16 bytes added to 16-bit lanes (at most 2 * 255 a lane per call). */
INLINE v128_t sad16_u16(v128_t acc, v128_t a, v128_t b) {
  return wasm_i16x8_add(acc, wasm_u16x8_extadd_pairwise_u8x16(wasm_i8x16_sub(wasm_u8x16_max(a, b), wasm_u8x16_min(a, b))));
}

/*
 * The same figures straight from the planes (yuv_rgb24's arguments). The
 * frame's image is written to out (the next frame's prev) planar, as the 16
 * pixels' R, G and B vectors come out of the converter (w * h * 3 bytes: for
 * each group of 16 pixels of a row, 16 R, 16 G, 16 B; the last w mod 16
 * pixels of a row as R G B triples): the figures are a largest, a smallest
 * and a sum, which no order of the samples changes, and the image is only
 * ever read back by this kernel, so it skips interleaving. Returns 0, or -1
 * for arguments yuv_rgb24 refuses (nothing written).
 */
EXPORT(clip_frame_yuv)
int clip_frame_yuv(const uint8_t *y, const uint8_t *u, const uint8_t *v, int w, int h, int cw, int vshift, int table, uint8_t *out,
                   const uint8_t *prev, double *stats) {
  if ((vshift != 0 && vshift != 1) || w <= 0 || h <= 0 || cw != (w + 1) / 2 || (h & vshift) != 0) return -1;
  YuvRgbConsts k;
  int t[6];
  if (yuv_rgb_consts(table, &k, t) != 0) return -1;
  const int rows = 1 << vshift, full = w & ~15;
  v128_t vhi = wasm_i8x16_splat(0), vlo = wasm_i8x16_splat((int8_t)0xFF);
  int hi = 0, lo = 255;
  double sad = 0;
  for (int cy = 0; cy < h >> vshift; cy++) {
    const uint8_t *ur = u + (long)cy * cw, *vrow = v + (long)cy * cw;
    const long yrow = (long)(cy << vshift) * w;
    v128_t vsad = wasm_i32x4_splat(0);
    for (int x = 0; x < full;) {
      /* 16-bit lanes take at most 3 * 2 * 255 per 16 pixels and row, 2 rows: widened every 16 groups. */
      const int end = x + 16 * 16 < full ? x + 16 * 16 : full;
      v128_t s16 = wasm_i16x8_splat(0);
      for (; x < end; x += 16) {
        v128_t rv, gc, bu;
        yuv_chroma8(&k, ur + x / 2, vrow + x / 2, &rv, &gc, &bu);
        for (int r = 0; r < rows; r++) {
          const long at = (yrow + (long)r * w + x) * 3;
          v128_t R, G, B;
          yuv_rgb16(&k, y + yrow + (long)r * w + x, rv, gc, bu, &R, &G, &B);
          vhi = wasm_u8x16_max(vhi, wasm_u8x16_max(R, wasm_u8x16_max(G, B)));
          vlo = wasm_u8x16_min(vlo, wasm_u8x16_min(R, wasm_u8x16_min(G, B)));
          wasm_v128_store(out + at, R);
          wasm_v128_store(out + at + 16, G);
          wasm_v128_store(out + at + 32, B);
          if (prev) {
            s16 = sad16_u16(s16, R, wasm_v128_load(prev + at));
            s16 = sad16_u16(s16, G, wasm_v128_load(prev + at + 16));
            s16 = sad16_u16(s16, B, wasm_v128_load(prev + at + 32));
          }
        }
      }
      vsad = wasm_i32x4_add(vsad, wasm_u32x4_extadd_pairwise_u16x8(s16));
    }
    sad += lanes_sum(vsad);
    /* The last w mod 16 pixels of each row (an odd width's last column uses the last chroma sample). */
    for (int x = full; x < w; x++) {
      for (int r = 0; r < rows; r++) {
        const long at = (yrow + (long)r * w + x) * 3;
        yuv_rgb1(t, y[yrow + (long)r * w + x], ur[x >> 1], vrow[x >> 1], out + at);
        clip_tail(out, prev, at, at + 3, &hi, &lo, &sad);
      }
    }
  }
  const int vh = u8_lanes_max(vhi), vl = u8_lanes_min(vlo);
  stats[0] = vh > hi ? vh : hi;
  stats[1] = vl < lo ? vl : lo;
  stats[2] = sad;
  return 0;
}

/* ------------------------------------------------------------------------ */
/* Radix-2 complex FFT in float64, for the audio metrics (metrics/fft.ts).   */
/* ------------------------------------------------------------------------ */

/*
 * In place on split re/im arrays of n (a power of two) doubles. cs and sn
 * hold the twiddles of every stage, contiguous (stage with half-size h at
 * [h - 1, 2h - 1)), computed by the caller (Math.cos / Math.sin: this
 * module has no libm). `inverse` uses e^{+...} and does not scale.
 *
 * The arithmetic of each butterfly is fixed, in float64 with no fused
 * multiply-add: xr = br*wr - bi*wi, xi = br*wi + bi*wr, b = a - x, a = a + x,
 * with wi = sign * sin. Two butterflies per f64x2 step, each lane its own:
 * the butterflies of a stage touch disjoint elements, so doing them in pairs
 * (or in any order) gives the same bits as one at a time.
 */
EXPORT(fft_f64)
void fft_f64(double *re, double *im, int n, const double *cs, const double *sn, int inverse) {
  /* Bit-reversal permutation, with a reversed counter. */
  for (int i = 0, j = 0; i < n; i++) {
    if (j > i) {
      double t = re[i];
      re[i] = re[j];
      re[j] = t;
      t = im[i];
      im[i] = im[j];
      im[j] = t;
    }
    int m = n >> 1;
    while (m > 0 && (j & m)) {
      j ^= m;
      m >>= 1;
    }
    j |= m;
  }
  /* Size-2 butterflies need no twiddle: a' = a + b, b' = a - b. */
  int a = 0;
  for (; a + 4 <= n; a += 4) {
    v128_t r01 = wasm_v128_load(re + a), r23 = wasm_v128_load(re + a + 2);
    v128_t i01 = wasm_v128_load(im + a), i23 = wasm_v128_load(im + a + 2);
    v128_t re_ = wasm_i64x2_shuffle(r01, r23, 0, 2), ro = wasm_i64x2_shuffle(r01, r23, 1, 3);
    v128_t ie = wasm_i64x2_shuffle(i01, i23, 0, 2), io = wasm_i64x2_shuffle(i01, i23, 1, 3);
    v128_t rs = wasm_f64x2_add(re_, ro), rd = wasm_f64x2_sub(re_, ro);
    v128_t is = wasm_f64x2_add(ie, io), id = wasm_f64x2_sub(ie, io);
    wasm_v128_store(re + a, wasm_i64x2_shuffle(rs, rd, 0, 2));
    wasm_v128_store(re + a + 2, wasm_i64x2_shuffle(rs, rd, 1, 3));
    wasm_v128_store(im + a, wasm_i64x2_shuffle(is, id, 0, 2));
    wasm_v128_store(im + a + 2, wasm_i64x2_shuffle(is, id, 1, 3));
  }
  for (; a + 1 < n; a += 2) {
    const double xr = re[a + 1], xi = im[a + 1];
    re[a + 1] = re[a] - xr;
    im[a + 1] = im[a] - xi;
    re[a] = re[a] + xr;
    im[a] = im[a] + xi;
  }
  const v128_t sign = wasm_f64x2_splat(inverse ? 1.0 : -1.0);
  for (int half = 2; half < n; half <<= 1) {
    const double *c = cs + (half - 1), *s = sn + (half - 1);
    for (int start = 0; start < n; start += 2 * half) {
      double *ra = re + start, *ia = im + start, *rb = ra + half, *ib = ia + half;
      for (int k = 0; k < half; k += 2) {
        const v128_t wr = wasm_v128_load(c + k), wi = wasm_f64x2_mul(sign, wasm_v128_load(s + k));
        const v128_t br = wasm_v128_load(rb + k), bi = wasm_v128_load(ib + k);
        const v128_t xr = wasm_f64x2_sub(wasm_f64x2_mul(br, wr), wasm_f64x2_mul(bi, wi));
        const v128_t xi = wasm_f64x2_add(wasm_f64x2_mul(br, wi), wasm_f64x2_mul(bi, wr));
        const v128_t ar = wasm_v128_load(ra + k), ai = wasm_v128_load(ia + k);
        wasm_v128_store(rb + k, wasm_f64x2_sub(ar, xr));
        wasm_v128_store(ib + k, wasm_f64x2_sub(ai, xi));
        wasm_v128_store(ra + k, wasm_f64x2_add(ar, xr));
        wasm_v128_store(ia + k, wasm_f64x2_add(ai, xi));
      }
    }
  }
}

/*
 * conj(X) * Y from Z = FFT(x + i y), x and y real (the lag estimator's
 * cross-spectrum, metrics/lag.ts): X[k] = (Z[k] + conj Z[m]) / 2 and
 * Y[k] = (Z[k] - conj Z[m]) / 2i with m = (size - k) mod size, in float64,
 * each term in the order written there.
 */
EXPORT(fft_cross_spectrum)
void fft_cross_spectrum(const double *zr, const double *zi, double *cr, double *ci, int size) {
  for (int k = 0; k < size; k++) {
    const int m = (size - k) & (size - 1);
    const double xr = 0.5 * (zr[k] + zr[m]);
    const double xi = 0.5 * (zi[k] - zi[m]);
    const double yr = 0.5 * (zi[k] + zi[m]);
    const double yi = 0.5 * (zr[m] - zr[k]);
    cr[k] = xr * yr + xi * yi;
    ci[k] = xr * yi - xi * yr;
  }
}

/* ------------------------------------------------------------------------ */
/* Spectral cosine: one window of both sides (metrics/spectral.ts).          */
/* ------------------------------------------------------------------------ */

/*
 * V8's Math.hypot of two numbers, step for step (its Torque builtin
 * MathHypot: the largest magnitude first, NaN and infinity rules, then a
 * Kahan-compensated sum of the squares normalised by it, its square root
 * times it), so a magnitude computed here has the bits Math.hypot gave.
 */
static double js_hypot2(double x, double y) {
  double max = 0.0;
  int nan = 0;
  const double ax = __builtin_fabs(x), ay = __builtin_fabs(y);
  if (x != x)
    nan = 1;
  else if (ax > max)
    max = ax;
  if (y != y)
    nan = 1;
  else if (ay > max)
    max = ay;
  if (max == __builtin_inf()) return __builtin_inf();
  if (nan) return __builtin_nan("");
  if (max == 0.0) return 0.0;
  double sum = 0.0, compensation = 0.0;
  const double values[2] = {ax, ay};
  for (int i = 0; i < 2; i++) {
    const double n = values[i] / max;
    const double summand = n * n - compensation;
    const double preliminary = sum + summand;
    compensation = (preliminary - sum) - summand;
    sum = preliminary;
  }
  return __builtin_sqrt(sum) * max;
}

/*
 * Magnitudes |X[k]|, k = 0..n/2, of the DFT of the real window x (n
 * samples: the first `fill` of `samples` times the window `win`, zeros
 * after), through one complex FFT of n/2 points (even samples as the real
 * part, odd as the imaginary part): X[k] = E + e^{-2 pi i k/n} O with
 * E = (Z[a] + conj Z[b]) / 2, O = (Z[a] - conj Z[b]) / 2i, a = k mod n/2,
 * b = (n/2 - k) mod n/2. rc/rs: cos and sin of 2 pi k / n, k = 0..n/2.
 */
static void real_magnitudes(const double *samples, const double *win, int n, int fill, const double *cs, const double *sn, const double *rc,
                            const double *rs, double *zr, double *zi, double *out) {
  const int h = n >> 1;
  for (int t = 0; t < h; t++) {
    zr[t] = 2 * t < fill ? samples[2 * t] * win[2 * t] : 0.0;
    zi[t] = 2 * t + 1 < fill ? samples[2 * t + 1] * win[2 * t + 1] : 0.0;
  }
  fft_f64(zr, zi, h, cs, sn, 0);
  for (int k = 0; k <= h; k++) {
    const int a = k % h, b = (h - k) % h;
    const double er = 0.5 * (zr[a] + zr[b]);
    const double ei = 0.5 * (zi[a] - zi[b]);
    const double or = 0.5 * (zi[a] + zi[b]);
    const double oi = 0.5 * (zr[b] - zr[a]);
    const double c = rc[k];
    const double s = -rs[k];
    out[k] = js_hypot2(er + (or * c - oi * s), ei + (or * s + oi * c));
  }
}

/*
 * One window of the spectral cosine: both sides' magnitudes, then the three
 * dot products added bin by bin, in bin order, to acc[0..2] (sum ma*mb,
 * ma*ma, mb*mb). scratch: 2 * (n/2) + 2 * (n/2 + 1) doubles.
 */
EXPORT(spectral_window)
void spectral_window(const double *a, const double *b, const double *win, int n, int fill, const double *cs, const double *sn, const double *rc,
                     const double *rs, double *scratch, double *acc) {
  const int h = n >> 1;
  double *zr = scratch, *zi = zr + h, *ma = zi + h, *mb = ma + h + 1;
  real_magnitudes(a, win, n, fill, cs, sn, rc, rs, zr, zi, ma);
  real_magnitudes(b, win, n, fill, cs, sn, rc, rs, zr, zi, mb);
  double ab = acc[0], aa = acc[1], bb = acc[2];
  for (int k = 0; k <= h; k++) {
    ab += ma[k] * mb[k];
    aa += ma[k] * ma[k];
    bb += mb[k] * mb[k];
  }
  acc[0] = ab;
  acc[1] = aa;
  acc[2] = bb;
}
