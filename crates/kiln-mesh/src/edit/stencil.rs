//! Stencils: each new point a weighted sum of old points. An operation that makes points
//! from others (subdivision) builds one stencil per new point and applies it to positions and
//! to every point attribute alike, so attributes follow the geometry.
//!
//! The rules that make stencils write their terms into a [`Terms`]: [`Stencils`] keeps
//! them (to blend attributes with), [`Positions`] sums them into new positions as they
//! come, with the same arithmetic as [`Stencils::apply`] and without storing them.

use crate::attribute::{Attributes, Weighted};
use glam::Vec3;

/// Where stencil terms go, one new point at a time.
pub trait Terms {
    /// Add a term to the stencil being built.
    fn push(&mut self, point: u32, weight: f32);
    /// Close the stencil being built: it is the next new point.
    fn finish(&mut self);
}

/// New positions summed term by term: each the fold, in term order from zero, of
/// old position × weight (as [`Stencils::apply`] computes it).
pub struct Positions<'a> {
    old: &'a [Vec3],
    sum: Vec3,
    /// The new positions so far, one per closed stencil.
    pub new: Vec<Vec3>,
}

impl<'a> Positions<'a> {
    /// New positions from `old`, room for `points` of them.
    pub fn new(old: &'a [Vec3], points: usize) -> Positions<'a> {
        Positions {
            old,
            sum: Vec3::ZERO,
            new: Vec::with_capacity(points),
        }
    }
}

impl Terms for Positions<'_> {
    #[inline]
    fn push(&mut self, point: u32, weight: f32) {
        self.sum += self.old[point as usize] * weight;
    }
    #[inline]
    fn finish(&mut self) {
        self.new.push(self.sum);
        self.sum = Vec3::ZERO;
    }
}

impl Terms for Stencils {
    #[inline]
    fn push(&mut self, point: u32, weight: f32) {
        Stencils::push(self, point, weight);
    }
    #[inline]
    fn finish(&mut self) {
        Stencils::finish(self);
    }
}

/// One weighted list of old points per new point, stored flat.
#[derive(Default)]
pub struct Stencils {
    offsets: Vec<u32>,
    items: Vec<Weighted>,
}

impl Stencils {
    /// Room for `points` stencils of about `per` terms each.
    pub fn with_capacity(points: usize, per: usize) -> Stencils {
        let mut offsets = Vec::with_capacity(points + 1);
        offsets.push(0);
        Stencils {
            offsets,
            items: Vec::with_capacity(points * per),
        }
    }
    /// Add a term to the stencil being built.
    #[inline]
    pub fn push(&mut self, point: u32, weight: f32) {
        self.items.push((point, weight));
    }
    /// Close the stencil being built: it is the next new point.
    #[inline]
    pub fn finish(&mut self) {
        self.offsets.push(self.items.len() as u32);
    }
    /// How many stencils are closed.
    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }
    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Stencil `i`.
    pub fn get(&self, i: usize) -> &[Weighted] {
        &self.items[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }
    /// The new positions from the old.
    pub fn apply(&self, old: &[Vec3]) -> Vec<Vec3> {
        (0..self.len())
            .map(|i| {
                self.get(i)
                    .iter()
                    .fold(Vec3::ZERO, |acc, &(p, w)| acc + old[p as usize] * w)
            })
            .collect()
    }
    /// The new point attributes from the old.
    pub fn apply_attrs(&self, old: &Attributes) -> Attributes {
        if old.is_empty() {
            return Attributes::default();
        }
        let lists: Vec<&[Weighted]> = (0..self.len()).map(|i| self.get(i)).collect();
        old.blend(&lists)
    }
}

/// Both at once: every term goes to each.
impl<A: Terms, B: Terms> Terms for (A, B) {
    #[inline]
    fn push(&mut self, point: u32, weight: f32) {
        self.0.push(point, weight);
        self.1.push(point, weight);
    }
    #[inline]
    fn finish(&mut self) {
        self.0.finish();
        self.1.finish();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_sum_as_the_stored_stencils_apply() {
        let old = [
            Vec3::new(0.1, 2.0, -3.0),
            Vec3::new(7.0, 0.3, 1.0 / 3.0),
            Vec3::X,
        ];
        let mut both = (Positions::new(&old, 3), Stencils::with_capacity(3, 3));
        for (p, w) in [(0, 0.25), (1, 0.6), (2, 1.0 / 7.0)] {
            both.push(p, w);
        }
        both.finish();
        both.push(2, 1.0);
        both.finish();
        both.finish();
        let (sum, kept) = both;
        assert_eq!(kept.len(), 3);
        let want = old[0] * 0.25 + old[1] * 0.6 + old[2] * (1.0 / 7.0);
        assert_eq!(sum.new, vec![want, Vec3::X, Vec3::ZERO]);
        assert_eq!(sum.new, kept.apply(&old));
    }
}
