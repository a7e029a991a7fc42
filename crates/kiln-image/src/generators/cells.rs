//! Cellular (Worley) noise: one feature point per lattice cell, placed by a hash of the cell
//! (wrapped at the period, so the points repeat), and per sample the distances to the
//! nearest point (F1), the second nearest (F2), their difference, or the nearest cell's id.

use crate::field::Noise2;
use crate::noise::splitmix64;

/// What a cellular sample gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CellOutput {
    /// Distance to the nearest feature point.
    F1,
    /// Distance to the second nearest.
    F2,
    /// `F2 - F1`: zero on the borders between cells.
    F2MinusF1,
    /// A number in [0, 1) per cell, the same over the whole cell.
    Id,
}

/// Cellular noise over cells of side 1.
#[derive(Clone, Debug)]
pub struct Cells {
    seed: u64,
    period: i64,
    jitter: f64,
    output: CellOutput,
}

/// Cells searched on each side of the sample's own cell: with one point per cell, every
/// point nearer than 2 lies within it.
const REACH: i64 = 2;

impl Cells {
    /// Cellular noise for `seed`, repeating every `period` cells (0: never); `jitter` in
    /// [0, 1] is how far a point may stray from its cell's centre (1: anywhere in the cell).
    pub fn new(seed: u64, period: i64, jitter: f64, output: CellOutput) -> Cells {
        Cells {
            seed,
            period: period.max(0),
            jitter: jitter.clamp(0.0, 1.0),
            output,
        }
    }

    fn cell_hash(&self, i: i64, j: i64) -> u64 {
        let (i, j) = if self.period > 0 {
            (i.rem_euclid(self.period), j.rem_euclid(self.period))
        } else {
            (i, j)
        };
        let mut s = self.seed ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        s ^= (j as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
        splitmix64(&mut s)
    }

    /// The feature point of cell `(i, j)`.
    pub fn point(&self, i: i64, j: i64) -> (f64, f64) {
        let h = self.cell_hash(i, j);
        let unit = |bits: u64| (bits >> 11) as f64 / (1u64 << 53) as f64;
        let ox = 0.5 + (unit(h) - 0.5) * self.jitter;
        let oy = 0.5 + (unit(splitmix64(&mut h.clone())) - 0.5) * self.jitter;
        (i as f64 + ox, j as f64 + oy)
    }

    /// The id of cell `(i, j)`, in [0, 1).
    pub fn id(&self, i: i64, j: i64) -> f64 {
        let mut h = self.cell_hash(i, j) ^ 0x5851_F42D_4C95_7F2D;
        (splitmix64(&mut h) >> 11) as f64 / (1u64 << 53) as f64
    }

    /// F1, F2 and the nearest cell at `(x, y)`.
    pub fn nearest(&self, x: f64, y: f64) -> (f64, f64, (i64, i64)) {
        let (ci, cj) = (x.floor() as i64, y.floor() as i64);
        let (mut f1, mut f2, mut best) = (f64::INFINITY, f64::INFINITY, (ci, cj));
        // Wrapping, as a release build adds (a huge coordinate saturates to the edge of
        // `i64`).
        for j in cj.wrapping_sub(REACH)..=cj.wrapping_add(REACH) {
            for i in ci.wrapping_sub(REACH)..=ci.wrapping_add(REACH) {
                let (px, py) = self.point(i, j);
                let d = ((px - x) * (px - x) + (py - y) * (py - y)).sqrt();
                if d < f1 {
                    f2 = f1;
                    f1 = d;
                    best = (i, j);
                } else if d < f2 {
                    f2 = d;
                }
            }
        }
        (f1, f2, best)
    }
}

impl Noise2 for Cells {
    fn sample(&self, x: f64, y: f64) -> f64 {
        let (f1, f2, (i, j)) = self.nearest(x, y);
        match self.output {
            CellOutput::F1 => f1,
            CellOutput::F2 => f2,
            CellOutput::F2MinusF1 => f2 - f1,
            CellOutput::Id => self.id(i, j),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// F1 and F2 by looking at every point of a wide square of cells.
    fn brute(c: &Cells, x: f64, y: f64) -> (f64, f64) {
        let mut d: Vec<f64> = Vec::new();
        for j in -12..12 {
            for i in -12..12 {
                let (px, py) = c.point(i, j);
                d.push(((px - x).powi(2) + (py - y).powi(2)).sqrt());
            }
        }
        d.sort_by(f64::total_cmp);
        (d[0], d[1])
    }

    #[test]
    fn f1_and_f2_match_a_search_of_every_point() {
        let c = Cells::new(17, 0, 1.0, CellOutput::F1);
        for k in 0..400 {
            let (x, y) = (
                (k as f64 * 0.1731) % 8.0 - 4.0,
                (k as f64 * 0.0917) % 8.0 - 4.0,
            );
            let (f1, f2, _) = c.nearest(x, y);
            assert_eq!((f1, f2), brute(&c, x, y), "at ({x}, {y})");
        }
    }

    #[test]
    fn cells_repeat_at_their_period_and_ids_are_constant_per_cell() {
        let c = Cells::new(5, 4, 1.0, CellOutput::F2MinusF1);
        for k in 0..200 {
            let (x, y) = (k as f64 * 0.0713, (k % 11) as f64 * 0.33);
            assert!((c.sample(x, y) - c.sample(x + 4.0, y - 8.0)).abs() < 1e-9);
        }
        let ids = Cells::new(5, 0, 0.0, CellOutput::Id);
        // Jitter 0: every point is its cell's centre, so the nearest is the own cell.
        assert_eq!(ids.sample(2.1, 3.2), ids.sample(2.9, 3.8));
        assert_eq!(ids.sample(2.1, 3.2), ids.id(2, 3));
        assert_ne!(ids.id(2, 3), ids.id(3, 3));
    }
}
