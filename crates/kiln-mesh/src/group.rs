//! Groups: named sets of points and of primitives, kept as sorted index lists.

use crate::attribute::AttribClass;
use std::collections::BTreeMap;

/// The named point groups and primitive groups of a mesh.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Groups {
    /// Point groups: sorted, distinct point indices.
    pub points: BTreeMap<String, Vec<u32>>,
    /// Primitive groups: sorted, distinct primitive indices.
    pub prims: BTreeMap<String, Vec<u32>>,
}

impl Groups {
    /// The groups of `class` (point or primitive; the others have none).
    pub fn of(&self, class: AttribClass) -> Option<&BTreeMap<String, Vec<u32>>> {
        match class {
            AttribClass::Point => Some(&self.points),
            AttribClass::Primitive => Some(&self.prims),
            _ => None,
        }
    }

    /// Set the group `name` of `class` to `members` (sorted and made distinct here).
    pub fn set(&mut self, class: AttribClass, name: &str, mut members: Vec<u32>) {
        members.sort_unstable();
        members.dedup();
        match class {
            AttribClass::Point => self.points.insert(name.into(), members),
            _ => self.prims.insert(name.into(), members),
        };
    }

    /// A mask of `n` elements, true for the members of primitive group `name`; every
    /// element when `name` is empty, `None` when there is no such group.
    pub fn prim_mask(&self, name: &str, n: usize) -> Option<Vec<bool>> {
        mask(&self.prims, name, n)
    }

    /// As [`Groups::prim_mask`] for point groups.
    pub fn point_mask(&self, name: &str, n: usize) -> Option<Vec<bool>> {
        mask(&self.points, name, n)
    }

    /// Whether every member exists and every list is sorted and distinct.
    pub fn check(&self, points: usize, prims: usize) -> Result<(), String> {
        for (kind, map, n) in [
            ("point", &self.points, points),
            ("primitive", &self.prims, prims),
        ] {
            for (name, m) in map {
                if m.windows(2).any(|w| w[0] >= w[1]) || m.last().is_some_and(|&l| l as usize >= n)
                {
                    return Err(format!(
                        "{kind} group `{name}` names elements out of order or range"
                    ));
                }
            }
        }
        Ok(())
    }
}

fn mask(map: &BTreeMap<String, Vec<u32>>, name: &str, n: usize) -> Option<Vec<bool>> {
    if name.is_empty() {
        return Some(vec![true; n]);
    }
    let members = map.get(name)?;
    let mut m = vec![false; n];
    for &i in members {
        if let Some(x) = m.get_mut(i as usize) {
            *x = true;
        }
    }
    Some(m)
}
