//! Where each corner of a boolean's output came from: a weighted set of input triangle
//! corners, carried through `boolmesh` as its per-corner value.
//!
//! `boolmesh` interpolates a value given on each input corner barycentrically over the input
//! triangle that an output corner lies on (and linearly where it re-swaps an edge). Giving it
//! a [`CornerMix`] — "corner `c` with weight 1" on every input corner — makes the output value
//! of every corner the list of input corners and barycentric weights it was made from: the
//! provenance that carries attributes through the boolean.

use boolmesh::Real;

/// The most input corners one mix holds (a barycentric mix holds three; one more gives room
/// for an edge re-swap mixing two such mixes of one face).
const SLOTS: usize = 4;
/// An empty slot's corner.
const EMPTY: u32 = u32::MAX;

/// Input corners and their weights (unused slots have corner [`EMPTY`] and weight 0).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CornerMix {
    corners: [u32; SLOTS],
    weights: [Real; SLOTS],
}

impl Default for CornerMix {
    fn default() -> CornerMix {
        CornerMix {
            corners: [EMPTY; SLOTS],
            weights: [0.0; SLOTS],
        }
    }
}

impl CornerMix {
    /// Input corner `corner` alone.
    pub fn corner(corner: u32) -> CornerMix {
        let mut m = CornerMix::default();
        m.corners[0] = corner;
        m.weights[0] = 1.0;
        m
    }

    /// The corners and weights, weights summing to 1 (empty when the mix is).
    pub fn terms(&self) -> Vec<(u32, f32)> {
        let total: Real = self.weights.iter().sum();
        if total <= 0.0 {
            return Vec::new();
        }
        self.corners
            .iter()
            .zip(self.weights)
            .filter(|&(&c, w)| c != EMPTY && w > 0.0)
            .map(|(&c, w)| (c, (w / total) as f32))
            .collect()
    }

    fn add_term(&mut self, corner: u32, weight: Real) {
        if corner == EMPTY || weight <= 0.0 {
            return;
        }
        if let Some(k) = self.corners.iter().position(|&c| c == corner) {
            self.weights[k] += weight;
        } else if let Some(k) = self.corners.iter().position(|&c| c == EMPTY) {
            self.corners[k] = corner;
            self.weights[k] = weight;
        } else {
            // Full (never for a mix of one face's corners): the lightest term gives way.
            let (k, w) = self
                .weights
                .iter()
                .copied()
                .enumerate()
                .fold((0, Real::MAX), |b, (k, w)| if w < b.1 { (k, w) } else { b });
            if weight > w {
                self.corners[k] = corner;
                self.weights[k] = weight;
            }
        }
    }
}

impl std::ops::Add for CornerMix {
    type Output = CornerMix;
    fn add(mut self, rhs: CornerMix) -> CornerMix {
        for (&c, &w) in rhs.corners.iter().zip(&rhs.weights) {
            self.add_term(c, w);
        }
        self
    }
}

impl std::ops::Mul<Real> for CornerMix {
    type Output = CornerMix;
    fn mul(mut self, k: Real) -> CornerMix {
        self.weights.iter_mut().for_each(|w| *w *= k);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_barycentric_sum_of_three_corners_keeps_each_weight() {
        let m =
            CornerMix::corner(3) * 0.2 + CornerMix::corner(4) * 0.3 + CornerMix::corner(5) * 0.5;
        let t = m.terms();
        assert_eq!(t.len(), 3);
        for (c, w) in [(3, 0.2), (4, 0.3), (5, 0.5)] {
            let got = t.iter().find(|x| x.0 == c).map(|x| x.1);
            assert!(got.is_some_and(|g| (g - w).abs() < 1e-6), "{c}: {got:?}");
        }
    }

    #[test]
    fn repeated_corners_add_up_and_zero_weights_vanish() {
        let m =
            CornerMix::corner(7) * 0.5 + CornerMix::corner(7) * 0.5 + CornerMix::corner(1) * 0.0;
        assert_eq!(m.terms(), vec![(7, 1.0)]);
        assert!(CornerMix::default().terms().is_empty());
    }
}
