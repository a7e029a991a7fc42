//! Lattice noises that can repeat: gradient (Perlin) and value noise over an integer lattice
//! whose cell indices wrap at a period, and their fractal sums (fBm, ridged, billow,
//! turbulence). With a period `p`, `f(x + p, y) = f(x, y + p) = f(x, y)` up to the rounding of
//! the sample point, so an image spanning whole periods tiles seamlessly.

use crate::field::Noise2;
use crate::noise::{grad, splitmix64};

/// Which lattice noise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Basis {
    /// Gradient noise (improved Perlin: quintic fade, eight gradients), in about [-1, 1].
    Perlin,
    /// Value noise: a random value per lattice point, blended by the quintic fade, in [-1, 1].
    Value,
    /// Simplex noise on a skewed triangular lattice ([`super::simplex`]), in [-1, 1]; its
    /// period must be even.
    Simplex,
}

/// How octaves are summed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fractal {
    /// `sum a^i n_i / sum a^i`: in [-1, 1].
    Fbm,
    /// `sum a^i (1 - |n_i|)^2 / sum a^i`: sharp ridges, in [0, 1].
    Ridged,
    /// `sum a^i (2 |n_i| - 1) / sum a^i`: puffy, in [-1, 1].
    Billow,
    /// `sum a^i |n_i| / sum a^i`: creases, in [0, 1].
    Turbulence,
}

/// One lattice noise with a permutation of its own and an optional period.
#[derive(Clone, Debug)]
pub struct Lattice {
    basis: Basis,
    perm: [u8; 256],
    values: [f64; 256],
    /// Cells after which the lattice repeats (0: never).
    period: i64,
}

fn fade(t: f64) -> f64 {
    t * t * t * (t * (t * 6.0 - 15.0) + 10.0)
}

impl Lattice {
    /// The noise of `basis` for `seed`, repeating every `period` cells (0: never).
    pub fn new(basis: Basis, seed: u64, period: i64) -> Lattice {
        let mut perm: [u8; 256] = std::array::from_fn(|i| i as u8);
        let mut state = seed;
        for i in (1..256usize).rev() {
            let j = (splitmix64(&mut state) % (i as u64 + 1)) as usize;
            perm.swap(i, j);
        }
        let values = std::array::from_fn(|_| {
            (splitmix64(&mut state) >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        });
        Lattice {
            basis,
            perm,
            values,
            period: period.max(0),
        }
    }

    /// The lattice index `i` wrapped to the period (then to the table).
    fn wrap(&self, i: i64) -> usize {
        let i = if self.period > 0 {
            i.rem_euclid(self.period)
        } else {
            i
        };
        (i & 255) as usize
    }

    fn hash(&self, i: i64, j: i64) -> u8 {
        let a = self.perm[self.wrap(i)] as usize;
        self.perm[(a + self.wrap(j)) & 255]
    }

    /// The noise at `(x, y)`.
    pub fn at(&self, x: f64, y: f64) -> f64 {
        if self.basis == Basis::Simplex {
            // Indices come wrapped to the period; the table wraps them at 256.
            return super::simplex::simplex(x, y, self.period, |i, j| {
                let a = self.perm[(i & 255) as usize] as usize;
                self.perm[(a + (j & 255) as usize) & 255]
            });
        }
        let (fx, fy) = (x.floor(), y.floor());
        let (i, j) = (fx as i64, fy as i64);
        let (dx, dy) = (x - fx, y - fy);
        let (u, v) = (fade(dx), fade(dy));
        let corner = |ci: i64, cj: i64, ox: f64, oy: f64| {
            // Wrapping, as a release build adds: a huge coordinate saturates to the edge of
            // `i64`, and the corner past it is the far end of the table either way.
            let h = self.hash(i.wrapping_add(ci), j.wrapping_add(cj));
            match self.basis {
                Basis::Perlin => grad(h, dx - ox, dy - oy),
                Basis::Value | Basis::Simplex => self.values[h as usize],
            }
        };
        let a = corner(0, 0, 0.0, 0.0);
        let b = corner(1, 0, 1.0, 0.0);
        let c = corner(0, 1, 0.0, 1.0);
        let d = corner(1, 1, 1.0, 1.0);
        let top = a + u * (b - a);
        let bottom = c + u * (d - c);
        top + v * (bottom - top)
    }
}

/// A fractal sum of lattice octaves: octave `i` at frequency `lacunarity^i` (a whole number
/// when tiled, so every octave repeats within the period) and amplitude `gain^i`.
pub struct FractalNoise {
    octaves: Vec<Lattice>,
    lacunarity: f64,
    gain: f64,
    fractal: Fractal,
}

impl FractalNoise {
    /// `octaves` octaves of `basis` noise; with `period > 0` octave `i` repeats every
    /// `period * lacunarity^i` of its own cells, which is `period` cells of the first.
    pub fn new(
        basis: Basis,
        fractal: Fractal,
        seed: u64,
        octaves: u32,
        lacunarity: f64,
        gain: f64,
        period: i64,
    ) -> FractalNoise {
        let mut s = seed;
        let mut p = period;
        let lac = if period > 0 {
            lacunarity.round().max(1.0)
        } else {
            lacunarity
        };
        let octaves = (0..octaves.max(1))
            .map(|_| {
                let l = Lattice::new(basis, splitmix64(&mut s), p);
                p = (p as f64 * lac) as i64;
                l
            })
            .collect();
        FractalNoise {
            octaves,
            lacunarity: lac,
            gain,
            fractal,
        }
    }
}

impl Noise2 for FractalNoise {
    fn sample(&self, x: f64, y: f64) -> f64 {
        let (mut sum, mut norm, mut amp, mut freq) = (0.0, 0.0, 1.0, 1.0);
        for o in &self.octaves {
            let n = o.at(x * freq, y * freq);
            sum += amp
                * match self.fractal {
                    Fractal::Fbm => n,
                    Fractal::Ridged => (1.0 - n.abs()) * (1.0 - n.abs()),
                    Fractal::Billow => 2.0 * n.abs() - 1.0,
                    Fractal::Turbulence => n.abs(),
                };
            norm += f64::abs(amp);
            amp *= self.gain;
            freq *= self.lacunarity;
        }
        if norm > 0.0 { sum / norm } else { 0.0 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_period_repeats_in_both_directions() {
        for basis in [Basis::Perlin, Basis::Value] {
            let n = Lattice::new(basis, 9, 5);
            for k in 0..200 {
                let (x, y) = (k as f64 * 0.137, (k % 13) as f64 * 0.291);
                let v = n.at(x, y);
                assert!((v - n.at(x + 5.0, y)).abs() < 1e-9, "{basis:?} at {x}");
                assert!((v - n.at(x, y - 10.0)).abs() < 1e-9, "{basis:?} at {y}");
            }
        }
    }

    /// Found by the `evaluate` fuzz target: a coordinate past `i64` saturates its lattice
    /// index, and the corner after it overflowed (a panic with overflow checks). Every basis,
    /// with and without a period, and the cells, are sampled there.
    #[test]
    fn coordinates_past_i64_sample_without_overflow() {
        use crate::generators::cells::{CellOutput, Cells};
        let far = [1e300, -1e300, 9.3e18, -9.3e18, f64::MAX, f64::MIN, 0.5];
        for period in [0, 4] {
            for basis in [Basis::Perlin, Basis::Value, Basis::Simplex] {
                let n = Lattice::new(basis, 3, period);
                for &x in &far {
                    for &y in &far {
                        let v = n.at(x, y);
                        assert!(
                            v.is_finite() && v.abs() <= 1.0 + 1e-9,
                            "{basis:?} {x} {y}: {v}"
                        );
                    }
                }
            }
            let c = Cells::new(3, period, 1.0, CellOutput::F1);
            for &x in &far {
                for &y in &far {
                    let _ = c.nearest(x, y);
                }
            }
        }
    }

    #[test]
    fn perlin_is_zero_on_the_lattice_and_value_noise_is_the_table() {
        let p = Lattice::new(Basis::Perlin, 3, 0);
        let v = Lattice::new(Basis::Value, 3, 0);
        for i in -4..4 {
            for j in -4..4 {
                assert_eq!(p.at(i as f64, j as f64), 0.0);
                let h = v.hash(i, j);
                assert_eq!(v.at(i as f64, j as f64), v.values[h as usize]);
            }
        }
    }

    #[test]
    fn fractal_sums_stay_in_range_and_tile() {
        for fractal in [
            Fractal::Fbm,
            Fractal::Ridged,
            Fractal::Billow,
            Fractal::Turbulence,
        ] {
            let f = FractalNoise::new(Basis::Perlin, fractal, 4, 4, 2.0, 0.5, 3);
            for k in 0..500 {
                let (x, y) = (k as f64 * 0.0731, (k % 17) as f64 * 0.173);
                let v = f.sample(x, y);
                assert!((-1.0..=1.0).contains(&v), "{fractal:?}: {v}");
                if matches!(fractal, Fractal::Ridged | Fractal::Turbulence) {
                    assert!(v >= 0.0);
                }
                assert!((v - f.sample(x + 3.0, y + 3.0)).abs() < 1e-9);
            }
        }
    }
}
