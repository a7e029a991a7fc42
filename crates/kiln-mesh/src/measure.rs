//! Facts about a mesh's shape and topology: edges, the Euler characteristic, whether it is
//! a closed 2-manifold, its surface area and enclosed volume.

use crate::geometry::{Mesh, PrimKind};
use glam::{DVec3, Vec3};
use std::collections::HashMap;

/// An undirected edge between two points, the smaller index first.
pub fn edge_key(a: u32, b: u32) -> (u32, u32) {
    if a < b { (a, b) } else { (b, a) }
}

/// The polygons' edges (undirected), each with how many polygons use it.
pub fn edges(mesh: &Mesh) -> HashMap<(u32, u32), u32> {
    let mut map = HashMap::with_capacity(mesh.vertices.len());
    for (i, p) in mesh.prims.iter().enumerate() {
        if p.kind != PrimKind::Polygon {
            continue;
        }
        let pts = mesh.prim_points(i);
        for k in 0..pts.len() {
            let e = edge_key(pts[k], pts[(k + 1) % pts.len()]);
            *map.entry(e).or_insert(0) += 1;
        }
    }
    map
}

/// V − E + F over the polygons: V counts the points they use, E their distinct edges, F
/// the polygons. 2 for a closed surface of genus 0, 0 for a torus.
pub fn euler_characteristic(mesh: &Mesh) -> i64 {
    let mut used = vec![false; mesh.points.len()];
    let mut faces = 0i64;
    for (i, p) in mesh.prims.iter().enumerate() {
        if p.kind == PrimKind::Polygon {
            faces += 1;
            mesh.prim_points(i)
                .iter()
                .for_each(|&v| used[v as usize] = true);
        }
    }
    let v = used.iter().filter(|&&u| u).count() as i64;
    v - edges(mesh).len() as i64 + faces
}

/// Whether the polygons form a closed, consistently oriented 2-manifold: every edge is used
/// by exactly two polygons, once in each direction, and no polygon repeats a point.
pub fn is_closed_manifold(mesh: &Mesh) -> bool {
    let mut directed: HashMap<(u32, u32), u32> = HashMap::new();
    for (i, p) in mesh.prims.iter().enumerate() {
        if p.kind != PrimKind::Polygon {
            continue;
        }
        let pts = mesh.prim_points(i);
        for k in 0..pts.len() {
            let (a, b) = (pts[k], pts[(k + 1) % pts.len()]);
            if a == b {
                return false;
            }
            *directed.entry((a, b)).or_insert(0) += 1;
        }
    }
    directed
        .iter()
        .all(|(&(a, b), &n)| n == 1 && directed.get(&(b, a)) == Some(&1))
}

fn dv(p: Vec3) -> DVec3 {
    p.as_dvec3()
}

/// The polygons' total area (each polygon fanned into triangles), in f64.
pub fn area(mesh: &Mesh) -> f64 {
    mesh.triangles()
        .iter()
        .map(|t| {
            let [a, b, c] = t.map(|i| dv(mesh.points[i as usize]));
            0.5 * (b - a).cross(c - a).length()
        })
        .sum()
}

/// The volume the polygons enclose, by the divergence theorem: the sum over triangles of
/// a · (b × c) / 6. Positive when the faces wind counter-clockwise seen from outside.
pub fn volume(mesh: &Mesh) -> f64 {
    mesh.triangles()
        .iter()
        .map(|t| {
            let [a, b, c] = t.map(|i| dv(mesh.points[i as usize]));
            a.dot(b.cross(c)) / 6.0
        })
        .sum()
}

/// The normal of polygon `p` by Newell's method (unit length, or zero for a degenerate one).
pub fn polygon_normal(mesh: &Mesh, p: usize) -> Vec3 {
    let pts = mesh.prim_points(p);
    let mut n = Vec3::ZERO;
    for k in 0..pts.len() {
        let a = mesh.points[pts[k] as usize];
        let b = mesh.points[pts[(k + 1) % pts.len()] as usize];
        n += Vec3::new(
            (a.y - b.y) * (a.z + b.z),
            (a.z - b.z) * (a.x + b.x),
            (a.x - b.x) * (a.y + b.y),
        );
    }
    n.normalize_or_zero()
}

/// The centre of polygon `p` (the mean of its points).
pub fn polygon_centre(mesh: &Mesh, p: usize) -> Vec3 {
    let pts = mesh.prim_points(p);
    let sum: Vec3 = pts.iter().map(|&i| mesh.points[i as usize]).sum();
    sum / pts.len().max(1) as f32
}

/// The axis-aligned bounds of the points, `None` when there are none.
pub fn bounds(mesh: &Mesh) -> Option<(Vec3, Vec3)> {
    let first = *mesh.points.first()?;
    Some(
        mesh.points
            .iter()
            .fold((first, first), |(lo, hi), &p| (lo.min(p), hi.max(p))),
    )
}
