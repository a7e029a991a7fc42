//! The edges of a mesh's polygons and the faces on each side, for the operations that walk
//! neighbourhoods (subdivision, smoothing, fusing).
//!
//! The table is built without hashing: the polygon corners are bucketed by the smaller
//! point of their edge (a counting sort), each bucket is sorted by the larger point, and
//! corners with the same pair are one edge. Edges are then numbered in the order their first
//! corner comes in the mesh, and faces are given to their sides in corner order, as a
//! first-seen map over the corners would.

use crate::geometry::{Mesh, PrimKind};

/// No face (an open side of a boundary edge).
pub const NONE: u32 = u32::MAX;

/// Every polygon edge once, with up to two faces beside it.
pub struct EdgeTable {
    /// The two points of each edge, the smaller first.
    pub edges: Vec<[u32; 2]>,
    /// The faces beside each edge (`NONE` where open; a third face and more are not kept,
    /// so a non-manifold edge reads as its first two faces).
    pub faces: Vec<[u32; 2]>,
    /// For each vertex of a polygon, the edge from it to the polygon's next vertex
    /// (`NONE` for the vertices of polylines).
    pub corner_edge: Vec<u32>,
}

/// Each polygon corner's edge as its two points, smaller first, or `None` for the corners
/// of polylines.
fn corner_pairs(mesh: &Mesh) -> Vec<Option<[u32; 2]>> {
    let mut pairs = vec![None; mesh.vertices.len()];
    for p in &mesh.prims {
        if p.kind != PrimKind::Polygon {
            continue;
        }
        let r = p.range();
        let ring = &mesh.vertices[r.clone()];
        for (k, slot) in pairs[r].iter_mut().enumerate() {
            let next = if k + 1 < ring.len() { k + 1 } else { 0 };
            let (a, b) = (ring[k], ring[next]);
            *slot = Some(if a < b { [a, b] } else { [b, a] });
        }
    }
    pairs
}

/// For each corner with a pair, the first corner (lowest index) with the same pair.
fn first_corners(pairs: &[Option<[u32; 2]>]) -> Vec<u32> {
    let lows = pairs.iter().flatten().map(|p| p[0] as usize + 1);
    let buckets = lows.max().unwrap_or(0);
    let mut offsets = vec![0u32; buckets + 1];
    pairs
        .iter()
        .flatten()
        .for_each(|p| offsets[p[0] as usize + 1] += 1);
    for i in 0..buckets {
        offsets[i + 1] += offsets[i];
    }
    // (larger point, corner) per corner, in buckets of the smaller point.
    let mut fill = offsets.clone();
    let mut sorted = vec![0u64; offsets[buckets] as usize];
    for (c, p) in pairs.iter().enumerate() {
        if let Some([lo, hi]) = *p {
            sorted[fill[lo as usize] as usize] = (u64::from(hi) << 32) | c as u64;
            fill[lo as usize] += 1;
        }
    }
    let mut first = vec![NONE; pairs.len()];
    for b in 0..buckets {
        let bucket = &mut sorted[offsets[b] as usize..offsets[b + 1] as usize];
        if bucket.len() <= 8 {
            // Buckets are mostly a few corners: sorted in place by insertion.
            for i in 1..bucket.len() {
                let mut j = i;
                while j > 0 && bucket[j - 1] > bucket[j] {
                    bucket.swap(j - 1, j);
                    j -= 1;
                }
            }
        } else {
            bucket.sort_unstable();
        }
        let mut group_hi = None;
        let mut group_first = NONE;
        for &item in bucket.iter() {
            let (hi, c) = ((item >> 32) as u32, item as u32);
            if group_hi != Some(hi) {
                group_hi = Some(hi);
                group_first = c;
            }
            first[c as usize] = group_first;
        }
    }
    first
}

impl EdgeTable {
    /// The edges of `mesh`'s polygons.
    pub fn of(mesh: &Mesh) -> EdgeTable {
        let pairs = corner_pairs(mesh);
        let first = first_corners(&pairs);
        let mut t = EdgeTable {
            edges: Vec::with_capacity(mesh.vertices.len() / 2 + 1),
            faces: Vec::with_capacity(mesh.vertices.len() / 2 + 1),
            corner_edge: vec![NONE; mesh.vertices.len()],
        };
        for (f, p) in mesh.prims.iter().enumerate() {
            if p.kind != PrimKind::Polygon {
                continue;
            }
            for c in p.range() {
                let (Some(pair), &head) = (pairs[c], &first[c]) else {
                    continue;
                };
                let e = if head as usize == c {
                    t.edges.push(pair);
                    t.faces.push([NONE, NONE]);
                    (t.edges.len() - 1) as u32
                } else {
                    t.corner_edge[head as usize]
                };
                let sides = &mut t.faces[e as usize];
                if sides[0] == NONE {
                    sides[0] = f as u32;
                } else if sides[1] == NONE {
                    sides[1] = f as u32;
                }
                t.corner_edge[c] = e;
            }
        }
        t
    }

    /// Whether edge `e` has a face on one side only.
    pub fn is_boundary(&self, e: usize) -> bool {
        self.faces[e][1] == NONE
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;
    use std::collections::HashMap;

    /// The definition: a first-seen map over the polygon corners in order.
    fn by_map(mesh: &Mesh) -> EdgeTable {
        let mut index: HashMap<(u32, u32), u32> = HashMap::new();
        let mut t = EdgeTable {
            edges: Vec::new(),
            faces: Vec::new(),
            corner_edge: vec![NONE; mesh.vertices.len()],
        };
        for (f, p) in mesh.prims.iter().enumerate() {
            if p.kind != PrimKind::Polygon {
                continue;
            }
            let r = p.range();
            for k in 0..r.len() {
                let a = mesh.vertices[r.start + k];
                let b = mesh.vertices[r.start + (k + 1) % r.len()];
                let key = (a.min(b), a.max(b));
                let e = *index.entry(key).or_insert_with(|| {
                    t.edges.push([key.0, key.1]);
                    t.faces.push([NONE, NONE]);
                    (t.edges.len() - 1) as u32
                });
                let sides = &mut t.faces[e as usize];
                if sides[0] == NONE {
                    sides[0] = f as u32;
                } else if sides[1] == NONE {
                    sides[1] = f as u32;
                }
                t.corner_edge[r.start + k] = e;
            }
        }
        t
    }

    #[test]
    fn the_table_is_the_first_seen_map_over_corners() {
        let mut m = Mesh::new();
        for i in 0..12 {
            m.add_point(Vec3::new(i as f32, 0.0, 0.0));
        }
        // Shared edges in both directions, a polyline, a pentagon, an edge of three faces,
        // a repeated point (an edge from a point to itself) and an unused point (11).
        m.add_polygon(&[4, 1, 0]);
        m.add_polygon(&[0, 1, 2, 3]);
        m.add_polyline(&[3, 9, 10]);
        m.add_polygon(&[2, 1, 5, 6, 7]);
        m.add_polygon(&[1, 2, 8]);
        m.add_polygon(&[8, 8, 9]);
        m.add_polygon(&[10, 9, 3, 0]);
        let (got, want) = (EdgeTable::of(&m), by_map(&m));
        assert_eq!(got.edges, want.edges);
        assert_eq!(got.faces, want.faces);
        assert_eq!(got.corner_edge, want.corner_edge);
        // Edge 1–2 is in three faces: the first two are kept.
        let e = got.edges.iter().position(|&e| e == [1, 2]).unwrap();
        assert_eq!(got.faces[e], [1, 3]);
    }

    #[test]
    fn a_point_of_many_edges_is_one_bucket_sorted_whole() {
        // A fan of 12 triangles around point 0 (a disc), listed out of order: 24 corners
        // whose edge has point 0 as its smaller end.
        let mut m = Mesh::new();
        for i in 0..13 {
            m.add_point(Vec3::new(i as f32, 0.0, 0.0));
        }
        for k in [5u32, 0, 11, 3, 7, 1, 9, 2, 10, 4, 8, 6] {
            m.add_polygon(&[0, 1 + k, 1 + (k + 1) % 12]);
        }
        let (got, want) = (EdgeTable::of(&m), by_map(&m));
        assert_eq!(got.edges, want.edges);
        assert_eq!(got.faces, want.faces);
        assert_eq!(got.corner_edge, want.corner_edge);
        // 12 spokes inside the disc (two faces each), 12 rim edges on its boundary.
        assert_eq!(got.edges.len(), 24);
        for (e, f) in got.edges.iter().zip(&got.faces) {
            assert_eq!(e[0] == 0, f[1] != NONE, "{e:?}");
        }
    }

    #[test]
    fn an_empty_mesh_has_no_edges() {
        let t = EdgeTable::of(&Mesh::new());
        assert!(t.edges.is_empty() && t.corner_edge.is_empty());
    }
}
