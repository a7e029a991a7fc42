//! Tileable 2D simplex noise on a skewed triangular lattice (the grid of Gustavson and
//! McEwan's "psrdnoise", JCGT 2022): the lattice point `(i, j)` sits at `(i - j / 2, j)`, so
//! each unit row of cells is a strip of triangles and a point finds its triangle by one
//! floor and one comparison. Each of the three corners adds `max(0, 0.8 - r^2)^4 (g . d)`
//! for its gradient `g` (one of sixteen unit vectors, picked by a hash of the corner) and the
//! offset `d` from the corner; the sum is scaled by 10.9 into about [-1, 1] and clamped there.
//!
//! A period `p` wraps corner indices so that the lattice repeats every `p` in `x` and in `y`:
//! moving `y` by `p` moves `j` by `p` and `i` by `p / 2`, so the period must be even (an odd
//! period is refused by `image.fractal`). Corners whose positions differ by whole periods get
//! the same hash, so `f(x + p, y) = f(x, y + p) = f(x, y)`, with no torus sampling and the same
//! three corners per sample as the untiled noise.

/// The sixteen gradients, unit vectors at angles `k * 22.5` degrees.
const GRADIENTS: [(f64, f64); 16] = {
    let mut g = [(0.0, 0.0); 16];
    // cos and sin of k * pi / 8, written out (const fn has no trigonometry).
    let c = [
        1.0,
        0.923_879_532_511_286_7,
        std::f64::consts::FRAC_1_SQRT_2,
        0.382_683_432_365_089_8,
        0.0,
        -0.382_683_432_365_089_8,
        -std::f64::consts::FRAC_1_SQRT_2,
        -0.923_879_532_511_286_7,
        -1.0,
        -0.923_879_532_511_286_7,
        -std::f64::consts::FRAC_1_SQRT_2,
        -0.382_683_432_365_089_8,
        0.0,
        0.382_683_432_365_089_8,
        std::f64::consts::FRAC_1_SQRT_2,
        0.923_879_532_511_286_7,
    ];
    let mut k = 0;
    while k < 16 {
        g[k] = (c[k], c[(k + 12) % 16]);
        k += 1;
    }
    g
};

/// The lattice corner `(i, j)` wrapped to an even period `p` (`p <= 0`: unchanged).
pub fn wrap_corner(i: i64, j: i64, p: i64) -> (i64, i64) {
    if p <= 0 {
        return (i, j);
    }
    let k = j.div_euclid(p);
    let j = j - k * p;
    let i = i.wrapping_sub(k.wrapping_mul(p / 2)).rem_euclid(p);
    (i, j)
}

/// Simplex noise at `(x, y)` with corner hashes from `hash` (called with wrapped indices).
pub fn simplex(x: f64, y: f64, period: i64, hash: impl Fn(i64, i64) -> u8) -> f64 {
    let u = x + 0.5 * y;
    let (fi, fj) = (u.floor(), y.floor());
    let (i0, j0) = (fi as i64, fj as i64);
    let (o1, o2) = if u - fi >= y - fj { (1, 0) } else { (0, 1) };
    let mut sum = 0.0;
    // Wrapping, as a release build adds (a huge coordinate saturates to the edge of `i64`).
    let corners = [
        (i0, j0),
        (i0.wrapping_add(o1), j0.wrapping_add(o2)),
        (i0.wrapping_add(1), j0.wrapping_add(1)),
    ];
    for (ci, cj) in corners {
        let (dx, dy) = (x - (ci as f64 - 0.5 * cj as f64), y - cj as f64);
        let w = 0.8 - (dx * dx + dy * dy);
        if w > 0.0 {
            let (wi, wj) = wrap_corner(ci, cj, period);
            let (gx, gy) = GRADIENTS[(hash(wi, wj) & 15) as usize];
            let w2 = w * w;
            sum += w2 * w2 * (gx * dx + gy * dy);
        }
    }
    (10.9 * sum).clamp(-1.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(i: i64, j: i64) -> u8 {
        let v = (i.wrapping_mul(73_856_093) ^ j.wrapping_mul(19_349_663)) as u64;
        (v.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 56) as u8
    }

    #[test]
    fn gradients_are_unit_vectors_at_their_angles() {
        for (k, (gx, gy)) in GRADIENTS.iter().enumerate() {
            let a = k as f64 * std::f64::consts::PI / 8.0;
            assert!(
                (gx - a.cos()).abs() < 1e-15 && (gy - a.sin()).abs() < 1e-15,
                "{k}"
            );
        }
    }

    #[test]
    fn zero_on_every_lattice_point() {
        // At a corner its own term has d = 0, and every other corner is at least 1 away
        // (r^2 >= 1 > 0.8), so nothing else reaches it.
        for j in -6..6i64 {
            for i in -6..6i64 {
                let (x, y) = (i as f64 - 0.5 * j as f64, j as f64);
                assert_eq!(simplex(x, y, 0, h), 0.0, "({i}, {j})");
            }
        }
    }

    #[test]
    fn an_even_period_repeats_in_x_and_y() {
        for p in [2i64, 4, 6] {
            for k in 0..300 {
                let (x, y) = (k as f64 * 0.0917 - 3.0, (k % 23) as f64 * 0.213 - 2.0);
                let v = simplex(x, y, p, h);
                let pf = p as f64;
                assert!((v - simplex(x + pf, y, p, h)).abs() < 1e-9, "x, p = {p}");
                assert!((v - simplex(x, y + pf, p, h)).abs() < 1e-9, "y, p = {p}");
                assert!((v - simplex(x - pf, y + 2.0 * pf, p, h)).abs() < 1e-9);
            }
        }
    }

    #[test]
    fn continuous_and_in_range() {
        // Each term is C2 (w^4 with w -> 0 at the radius), so small steps give small changes:
        // one term changes at most 8 r w^3 + w^4 < 3.7 per unit, three terms times 10.9 < 150.
        let (mut lo, mut hi) = (0.0f64, 0.0f64);
        for k in 0..20_000 {
            let (x, y) = ((k % 200) as f64 * 0.037, (k / 200) as f64 * 0.041);
            let v = simplex(x, y, 0, h);
            let step = simplex(x + 1e-4, y, 0, h);
            assert!((v - step).abs() < 150.0 * 1e-4, "jump at ({x}, {y})");
            lo = lo.min(v);
            hi = hi.max(v);
        }
        assert!(lo > -1.0 - 1e-12 && hi < 1.0 + 1e-12);
        assert!(hi - lo > 1.0, "range {lo}..{hi} too narrow");
    }

    #[test]
    fn wrap_corner_moves_by_whole_periods() {
        for (i, j) in [(-7i64, -3i64), (5, 9), (0, 0), (13, -8)] {
            let (wi, wj) = wrap_corner(i, j, 4);
            assert!((0..4).contains(&wj) && (0..4).contains(&wi));
            // The positions x = i - j / 2 and y = j differ by whole periods.
            let dx = (i as f64 - 0.5 * j as f64) - (wi as f64 - 0.5 * wj as f64);
            let dy = (j - wj) as f64;
            assert_eq!(dx.rem_euclid(4.0), 0.0);
            assert_eq!(dy.rem_euclid(4.0), 0.0);
        }
    }
}
