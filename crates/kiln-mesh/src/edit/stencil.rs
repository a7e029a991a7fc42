//! Stencils: each new point a weighted sum of old points. An operation that makes points
//! from others (subdivision) builds one stencil per new point and applies it to positions and
//! to every point attribute alike, so attributes follow the geometry.

use crate::attribute::{Attributes, Weighted};
use glam::Vec3;

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
