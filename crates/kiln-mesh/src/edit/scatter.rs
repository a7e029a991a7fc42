//! Scattering points on a surface: each point on a triangle drawn with probability
//! proportional to its area, at a uniform place within it, from a seeded generator; a
//! candidate nearer than `min_distance` to a point already kept is thrown away (dart
//! throwing through a grid of cells `min_distance` wide), for at most 30 tries per point
//! asked. The points carry `N`, their face's normal; the result has points and no
//! primitives.

use super::attrib::unit_random;
use crate::attribute::AttribValues;
use crate::geometry::Mesh;
use crate::limits::{LimitError, check_size};
use glam::{IVec3, Vec3};
use std::collections::HashMap;

/// How often (in tries) a scatter reports its progress and asks whether to stop.
pub const STEP_EVERY: u64 = 1 << 16;

/// Why a scatter made no mesh.
#[derive(Debug, thiserror::Error)]
pub enum ScatterError {
    /// More points asked than a mesh may have.
    #[error(transparent)]
    Limit(#[from] LimitError),
    /// Its caller asked it to stop (a cancelled cook).
    #[error("stopped")]
    Stopped,
}

/// Up to `count` points on `mesh`'s polygons (see the module docs).
pub fn scatter(
    node: &str,
    mesh: &Mesh,
    count: u32,
    seed: u64,
    min_distance: f32,
) -> Result<Mesh, ScatterError> {
    scatter_with(node, mesh, (count, seed, min_distance), &mut |_| false)
}

/// [`scatter`], calling `step` with the fraction of the tries made every [`STEP_EVERY`]
/// tries (progress for a long scatter: ten million points a tiny distance apart take
/// minutes); `step` answering `true` stops it.
pub fn scatter_with(
    node: &str,
    mesh: &Mesh,
    (count, seed, min_distance): (u32, u64, f32),
    step: &mut dyn FnMut(f32) -> bool,
) -> Result<Mesh, ScatterError> {
    check_size(node, count as u64, 0, 0)?;
    let tris = mesh.triangles();
    let mut cumulative = Vec::with_capacity(tris.len());
    let mut total = 0.0f64;
    for t in &tris {
        let [a, b, c] = t.map(|i| mesh.points[i as usize]);
        total += 0.5 * (b - a).cross(c - a).length() as f64;
        cumulative.push(total);
    }
    let mut out = Mesh::new();
    let mut normals = Vec::new();
    if total <= 0.0 || count == 0 {
        out.point_attrs.insert("N", AttribValues::Vec3(normals));
        return Ok(out);
    }
    let cell_size = min_distance.max(1e-6);
    let cell = |p: Vec3| (p / cell_size).floor().as_ivec3();
    let mut grid: HashMap<IVec3, Vec<u32>> = HashMap::new();
    let tries = count as u64 * 30;
    for k in 0..tries {
        if out.points.len() as u32 >= count {
            break;
        }
        // Kept points over asked points: the share of the work done when few are thrown.
        if k % STEP_EVERY == STEP_EVERY - 1 && step(out.points.len() as f32 / count as f32) {
            return Err(ScatterError::Stopped);
        }
        let r = [0, 1, 2].map(|lane| unit_random(seed, k, lane));
        let target = r[0] as f64 * total;
        let t = cumulative
            .partition_point(|&c| c < target)
            .min(tris.len() - 1);
        let [a, b, c] = tris[t].map(|i| mesh.points[i as usize]);
        let (mut u, mut v) = (r[1], r[2]);
        if u + v > 1.0 {
            (u, v) = (1.0 - u, 1.0 - v);
        }
        let p = a + (b - a) * u + (c - a) * v;
        if min_distance > 0.0 {
            let home = cell(p);
            let near = (-1..=1).any(|dz| {
                (-1..=1).any(|dy| {
                    (-1..=1).any(|dx| {
                        // Saturating, as in `fuse`: a cell past `i32` is at its edge.
                        grid.get(&home.saturating_add(IVec3::new(dx, dy, dz)))
                            .is_some_and(|list| {
                                list.iter()
                                    .any(|&q| out.points[q as usize].distance(p) < min_distance)
                            })
                    })
                })
            });
            if near {
                continue;
            }
            grid.entry(home).or_default().push(out.points.len() as u32);
        }
        out.add_point(p);
        normals.push((b - a).cross(c - a).normalize_or_zero());
    }
    out.point_attrs.insert("N", AttribValues::Vec3(normals));
    Ok(out)
}
