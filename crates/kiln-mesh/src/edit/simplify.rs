//! Simplification through meshoptimizer (`meshopt`): the polygons fanned into triangles,
//! then edges collapsed until `ratio` of the triangles remain or the next collapse would
//! move the surface more than `error` (relative to the mesh's extent).
//!
//! meshoptimizer keeps a subset of the points, unmoved, and returns triangles over them, so
//! point attributes and point groups of the kept points pass unchanged (unused points are
//! removed). meshoptimizer says nothing of which input face a triangle replaces, so each
//! output triangle takes as its *source* the input polygon holding most of its three points
//! (the lowest-numbered on a tie; a polygon at one of its points when none holds two): it
//! takes that polygon's primitive attributes and primitive groups, and each corner takes the
//! vertex attributes of the source polygon's vertex at that point, or, when the polygon does
//! not hold the point, of the point's first vertex. Polylines are dropped.

use super::restructure::compact;
use crate::attribute::AttribClass;
use crate::geometry::{Mesh, PrimKind};

/// The triangles meshoptimizer keeps of `triangles` (point indices) over `points`, aiming at
/// `target` triangles within the relative `error`.
pub fn simplify_indices(
    points: &[[f32; 3]],
    triangles: &[u32],
    target: usize,
    error: f32,
) -> Vec<u32> {
    meshopt::simplify_decoder(
        triangles,
        points,
        target * 3,
        error,
        meshopt::SimplifyOptions::None,
        None,
    )
}

/// For each point, the polygon vertices at it (in vertex order), in compressed rows.
struct PointVertices {
    offsets: Vec<u32>,
    vertices: Vec<u32>,
    prim_of: Vec<u32>,
}

impl PointVertices {
    fn of(mesh: &Mesh) -> PointVertices {
        let mut prim_of = vec![u32::MAX; mesh.vertices.len()];
        for (f, p) in mesh.prims.iter().enumerate() {
            if p.kind == PrimKind::Polygon {
                prim_of[p.range()].fill(f as u32);
            }
        }
        let mut offsets = vec![0u32; mesh.points.len() + 1];
        for (v, &p) in mesh.vertices.iter().enumerate() {
            if prim_of[v] != u32::MAX {
                offsets[p as usize + 1] += 1;
            }
        }
        for i in 0..mesh.points.len() {
            offsets[i + 1] += offsets[i];
        }
        let mut fill = offsets.clone();
        let mut vertices = vec![0u32; offsets[mesh.points.len()] as usize];
        for (v, &p) in mesh.vertices.iter().enumerate() {
            if prim_of[v] != u32::MAX {
                vertices[fill[p as usize] as usize] = v as u32;
                fill[p as usize] += 1;
            }
        }
        PointVertices {
            offsets,
            vertices,
            prim_of,
        }
    }

    fn at(&self, p: u32) -> &[u32] {
        let p = p as usize;
        &self.vertices[self.offsets[p] as usize..self.offsets[p + 1] as usize]
    }

    /// The vertex of polygon `prim` at point `p`.
    fn in_prim(&self, p: u32, prim: u32) -> Option<u32> {
        self.at(p)
            .iter()
            .copied()
            .find(|&v| self.prim_of[v as usize] == prim)
    }

    /// The source polygon of triangle `tri` (see the module docs).
    fn source(&self, tri: &[u32]) -> u32 {
        let mut best: Option<(usize, u32)> = None;
        for &p in tri {
            for &v in self.at(p) {
                let f = self.prim_of[v as usize];
                let held = tri
                    .iter()
                    .filter(|&&q| self.in_prim(q, f).is_some())
                    .count();
                if best.is_none_or(|(h, b)| held > h || (held == h && f < b)) {
                    best = Some((held, f));
                }
            }
        }
        best.map_or(0, |b| b.1)
    }
}

/// `mesh` simplified toward `ratio` (0 to 1) of its triangles.
pub fn simplify(mesh: &Mesh, ratio: f32, error: f32) -> Mesh {
    let tris: Vec<u32> = mesh.triangles().into_iter().flatten().collect();
    let points: Vec<[f32; 3]> = mesh.points.iter().map(|p| p.to_array()).collect();
    let target = ((tris.len() / 3) as f32 * ratio.clamp(0.0, 1.0)).round() as usize;
    let kept = simplify_indices(&points, &tris, target, error.max(0.0));
    let mut out = Mesh {
        points: mesh.points.clone(),
        point_attrs: mesh.point_attrs.clone(),
        detail_attrs: mesh.detail_attrs.clone(),
        ..Mesh::default()
    };
    out.groups.points = mesh.groups.points.clone();
    let carry = !(mesh.vertex_attrs.is_empty()
        && mesh.prim_attrs.is_empty()
        && mesh.groups.prims.is_empty());
    let at = if carry {
        Some(PointVertices::of(mesh))
    } else {
        None
    };
    let mut sources = Vec::with_capacity(kept.len() / 3);
    let mut corners = Vec::with_capacity(kept.len());
    for t in kept.chunks_exact(3) {
        out.add_polygon(t);
        if let Some(at) = &at {
            let f = at.source(t);
            sources.push(f);
            for &p in t {
                let v = at.in_prim(p, f).or_else(|| at.at(p).first().copied());
                corners.push(v.unwrap_or(0));
            }
        }
    }
    if carry {
        out.vertex_attrs = mesh.vertex_attrs.pick(&corners);
        out.prim_attrs = mesh.prim_attrs.pick(&sources);
        for (name, members) in &mesh.groups.prims {
            let kids = sources
                .iter()
                .enumerate()
                .filter(|(_, f)| members.binary_search(f).is_ok())
                .map(|(k, _)| k as u32)
                .collect();
            out.groups.set(AttribClass::Primitive, name, kids);
        }
    }
    compact(&mut out);
    out
}
