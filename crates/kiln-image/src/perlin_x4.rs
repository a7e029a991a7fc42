//! One octave of [`Perlin::noise`] added into many points, four points at a time on x86-64
//! CPUs with AVX2, with the same bits as the one-point form.
//!
//! Every step is the scalar step on four lanes: the same IEEE operations in the same order
//! (`floor` is `vroundpd` toward minus infinity, which is `f64::floor`; the gradient's sign
//! flips are the same exclusive ors of the sign bit; no multiply is fused with an add), so
//! each lane's bits are those of [`Perlin::noise`]. The permutation lookups are gathers from
//! the table widened to `i32`. A group of four points with a coordinate outside ±2³¹ (or not
//! a number) and the last `len % 4` points take the one-point form.
//!
//! CPUs without AVX2, and other architectures, take the one-point form for every point.

use crate::noise::Perlin;

/// One octave's place in an fBm sum: the sample point of `(x, y)` is
/// `(x * freq + shift.0, y * freq + shift.1)`, and the noise there is added times `amp`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Octave {
    pub freq: f64,
    pub shift: (f64, f64),
    pub amp: f64,
}

/// `out[k] += amp * noise(xs[k] * freq + sx, ys[k] * freq + sy)` for every `k` (the three
/// slices have one length), with the bits of the one-point form.
pub(crate) fn add_octave(p: &Perlin, xs: &[f64], ys: &[f64], o: Octave, out: &mut [f64]) {
    let n = out.len().min(xs.len()).min(ys.len());
    let (xs, ys, out) = (&xs[..n], &ys[..n], &mut out[..n]);
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2 (checked just above), the one feature the function
            // is compiled for.
            unsafe { x86::add_octave_avx2(p, xs, ys, o, out) };
            return;
        }
    }
    add_octave_scalar(p, xs, ys, o, out);
}

/// The one-point form over every point.
pub(crate) fn add_octave_scalar(p: &Perlin, xs: &[f64], ys: &[f64], o: Octave, out: &mut [f64]) {
    for ((r, &x), &y) in out.iter_mut().zip(xs).zip(ys) {
        *r += o.amp * p.noise(x * o.freq + o.shift.0, y * o.freq + o.shift.1);
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{Octave, add_octave_scalar};
    use crate::noise::Perlin;
    use std::arch::x86_64::*;

    /// Below this magnitude a coordinate's lattice cell converts to an `i32` exactly.
    const I32_SAFE: f64 = 2_147_483_648.0; // 2^31

    /// [`super::add_octave`] four points at a time.
    ///
    /// # Safety
    /// The CPU must have AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn add_octave_avx2(
        p: &Perlin,
        xs: &[f64],
        ys: &[f64],
        o: Octave,
        out: &mut [f64],
    ) {
        let table = p.table_i32();
        let whole = out.len() / 4 * 4;
        let freq = _mm256_set1_pd(o.freq);
        let (sx, sy) = (_mm256_set1_pd(o.shift.0), _mm256_set1_pd(o.shift.1));
        let amp = _mm256_set1_pd(o.amp);
        let safe = _mm256_set1_pd(I32_SAFE);
        let sign = _mm256_set1_pd(-0.0);
        let (one, zero) = (_mm256_set1_pd(1.0), _mm256_set1_pd(0.0));
        let byte = _mm_set1_epi32(255);
        let next = _mm_set1_epi32(1);
        let mut k = 0;
        while k < whole {
            let (xk, yk, ok) = (&xs[k..k + 4], &ys[k..k + 4], &mut out[k..k + 4]);
            // SAFETY: each slice has four elements (k + 4 <= whole <= len).
            let (x, y, acc) = unsafe {
                (
                    _mm256_loadu_pd(xk.as_ptr()),
                    _mm256_loadu_pd(yk.as_ptr()),
                    _mm256_loadu_pd(ok.as_ptr()),
                )
            };
            let vx = _mm256_add_pd(_mm256_mul_pd(x, freq), sx);
            let vy = _mm256_add_pd(_mm256_mul_pd(y, freq), sy);
            let in_range = _mm256_and_pd(
                _mm256_cmp_pd::<_CMP_LT_OQ>(_mm256_andnot_pd(sign, vx), safe),
                _mm256_cmp_pd::<_CMP_LT_OQ>(_mm256_andnot_pd(sign, vy), safe),
            );
            if _mm256_movemask_pd(in_range) != 0b1111 {
                add_octave_scalar(p, xk, yk, o, ok);
                k += 4;
                continue;
            }
            let fx = _mm256_floor_pd(vx);
            let fy = _mm256_floor_pd(vy);
            // `(v - floor(v)) + 0.0`, as the one-point form writes it.
            let px = _mm256_add_pd(_mm256_sub_pd(vx, fx), zero);
            let py = _mm256_add_pd(_mm256_sub_pd(vy, fy), zero);
            // The cells wrapped to 0..=255: the low byte of the two's complement integer,
            // as `f as i64 & 255` gives it.
            let xi = _mm_and_si128(_mm256_cvttpd_epi32(fx), byte);
            let yi = _mm_and_si128(_mm256_cvttpd_epi32(fy), byte);
            // SAFETY: every index is below 512, the table's length: xi + 1 <= 256, and a
            // table entry (<= 255) plus yi (<= 255) plus 1 is at most 511.
            let (aa, ab, ba, bb) = unsafe {
                let t = table.as_ptr();
                let a = _mm_add_epi32(_mm_i32gather_epi32::<4>(t, xi), yi);
                let b = _mm_add_epi32(_mm_i32gather_epi32::<4>(t, _mm_add_epi32(xi, next)), yi);
                (
                    _mm_i32gather_epi32::<4>(t, a),
                    _mm_i32gather_epi32::<4>(t, _mm_add_epi32(a, next)),
                    _mm_i32gather_epi32::<4>(t, b),
                    _mm_i32gather_epi32::<4>(t, _mm_add_epi32(b, next)),
                )
            };
            let u = fade(px);
            let v = fade(py);
            let (qx, qy) = (_mm256_sub_pd(px, one), _mm256_sub_pd(py, one));
            let n = lerp(
                v,
                lerp(u, grad(aa, px, py, sign), grad(ba, qx, py, sign)),
                lerp(u, grad(ab, px, qy, sign), grad(bb, qx, qy, sign)),
            );
            let sum = _mm256_add_pd(acc, _mm256_mul_pd(amp, n));
            // SAFETY: `ok` has four elements.
            unsafe { _mm256_storeu_pd(ok.as_mut_ptr(), sum) };
            k += 4;
        }
        add_octave_scalar(p, &xs[whole..], &ys[whole..], o, &mut out[whole..]);
    }

    /// `t * t * t * (t * (t * 6 - 15) + 10)`, in that order.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn fade(t: __m256d) -> __m256d {
        let cube = _mm256_mul_pd(_mm256_mul_pd(t, t), t);
        let inner = _mm256_sub_pd(_mm256_mul_pd(t, _mm256_set1_pd(6.0)), _mm256_set1_pd(15.0));
        let poly = _mm256_add_pd(_mm256_mul_pd(t, inner), _mm256_set1_pd(10.0));
        _mm256_mul_pd(cube, poly)
    }

    /// `a + t * (b - a)`.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn lerp(t: __m256d, a: __m256d, b: __m256d) -> __m256d {
        _mm256_add_pd(a, _mm256_mul_pd(t, _mm256_sub_pd(b, a)))
    }

    /// The gradient dot product of [`crate::noise::grad`] on four lanes: bit 0 of the hash
    /// flips `x` (or the axis), bit 1 flips `y` and picks the axis `y`, bit 2 picks an axis
    /// over a diagonal.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn grad(hash: __m128i, x: __m256d, y: __m256d, sign: __m256d) -> __m256d {
        let h = _mm256_cvtepi32_epi64(hash);
        let flip_x = _mm256_castsi256_pd(_mm256_slli_epi64::<63>(h));
        let bit1 = _mm256_castsi256_pd(_mm256_slli_epi64::<62>(h));
        let bit2 = _mm256_castsi256_pd(_mm256_slli_epi64::<61>(h));
        let flip_y = _mm256_and_pd(bit1, sign);
        let diagonal = _mm256_add_pd(_mm256_xor_pd(x, flip_x), _mm256_xor_pd(y, flip_y));
        let axis = _mm256_xor_pd(_mm256_blendv_pd(x, y, bit1), flip_x);
        _mm256_blendv_pd(diagonal, axis, bit2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::noise::splitmix64;

    fn bits_equal(a: f64, b: f64) -> bool {
        a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
    }

    /// Points of every kind: ordinary, on lattice lines, negative, near ±2³¹, past it, huge,
    /// infinite and not a number, in groups that mix them.
    fn points(count: usize, seed: u64) -> Vec<f64> {
        let mut state = seed;
        let awkward = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            255.5,
            -256.0,
            2_147_483_647.5,
            -2_147_483_648.0,
            -2_147_483_648.5,
            2_147_483_648.0,
            1e15,
            -4.5e15,
            1e300,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
        ];
        (0..count)
            .map(|_| {
                let r = splitmix64(&mut state);
                if r.is_multiple_of(11) {
                    awkward[(r >> 8) as usize % awkward.len()]
                } else {
                    let scale = [1.0, 40.0, 1e6, 3e9][(r >> 4) as usize & 3];
                    ((r >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * scale
                }
            })
            .collect()
    }

    #[test]
    fn four_lanes_give_the_bits_of_one_point_at_a_time() {
        for seed in [0u64, 1, 42, 0xDEAD_BEEF] {
            let p = Perlin::new(seed);
            for len in [0usize, 1, 3, 4, 5, 8, 255, 256, 1001] {
                let xs = points(len, seed ^ 17);
                let ys = points(len, seed ^ 91);
                let octave = Octave {
                    freq: 1.7,
                    shift: (0.3, -0.577),
                    amp: 0.6,
                };
                let start = points(len, seed ^ 5);
                let (mut fast, mut slow) = (start.clone(), start);
                add_octave(&p, &xs, &ys, octave, &mut fast);
                add_octave_scalar(&p, &xs, &ys, octave, &mut slow);
                for k in 0..len {
                    assert!(
                        bits_equal(fast[k], slow[k]),
                        "seed {seed}, {len} points, point {k} ({}, {}): {} against {}",
                        xs[k],
                        ys[k],
                        fast[k],
                        slow[k]
                    );
                }
            }
        }
    }

    #[test]
    fn a_dense_grid_of_every_cell_and_hash_matches() {
        // Points across all 256 x 256 cells at fractions that reach every gradient.
        let p = Perlin::new(7);
        let (mut xs, mut ys) = (Vec::new(), Vec::new());
        for j in 0..300 {
            for i in 0..300 {
                xs.push(i as f64 * 0.8671 - 3.0);
                ys.push(j as f64 * 0.9133 - 5.0);
            }
        }
        let octave = Octave {
            freq: 1.0,
            shift: (0.0, 0.0),
            amp: 1.0,
        };
        let (mut fast, mut slow) = (vec![0.0; xs.len()], vec![0.0; xs.len()]);
        add_octave(&p, &xs, &ys, octave, &mut fast);
        add_octave_scalar(&p, &xs, &ys, octave, &mut slow);
        let differ = (0..xs.len())
            .filter(|&k| !bits_equal(fast[k], slow[k]))
            .count();
        assert_eq!(differ, 0, "{differ} of {} points differ", xs.len());
    }
}
