//! The edges of a mesh's polygons and the faces on each side, for the operations that walk
//! neighbourhoods (subdivision, smoothing, fusing).

use crate::geometry::{Mesh, PrimKind};
use crate::measure::edge_key;
use std::collections::HashMap;

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

impl EdgeTable {
    /// The edges of `mesh`'s polygons.
    pub fn of(mesh: &Mesh) -> EdgeTable {
        let mut index: HashMap<(u32, u32), u32> = HashMap::with_capacity(mesh.vertices.len());
        let mut t = EdgeTable {
            edges: Vec::with_capacity(mesh.vertices.len() / 2 + 1),
            faces: Vec::with_capacity(mesh.vertices.len() / 2 + 1),
            corner_edge: vec![NONE; mesh.vertices.len()],
        };
        for (f, p) in mesh.prims.iter().enumerate() {
            if p.kind != PrimKind::Polygon {
                continue;
            }
            let r = p.range();
            let n = r.len();
            for k in 0..n {
                let a = mesh.vertices[r.start + k];
                let b = mesh.vertices[r.start + (k + 1) % n];
                let key = edge_key(a, b);
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

    /// Whether edge `e` has a face on one side only.
    pub fn is_boundary(&self, e: usize) -> bool {
        self.faces[e][1] == NONE
    }
}
