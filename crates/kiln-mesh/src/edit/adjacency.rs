//! Per-point neighbourhoods: the edges at each point, in compressed rows.

use super::topology::EdgeTable;

/// For each point, the edges that meet there.
pub struct PointEdges {
    offsets: Vec<u32>,
    edges: Vec<u32>,
}

impl PointEdges {
    /// The edges at each of `points` points.
    pub fn of(points: usize, table: &EdgeTable) -> PointEdges {
        let mut offsets = vec![0u32; points + 1];
        for e in &table.edges {
            offsets[e[0] as usize + 1] += 1;
            offsets[e[1] as usize + 1] += 1;
        }
        for i in 0..points {
            offsets[i + 1] += offsets[i];
        }
        let mut fill = offsets.clone();
        let mut edges = vec![0u32; table.edges.len() * 2];
        for (i, e) in table.edges.iter().enumerate() {
            for &p in e {
                edges[fill[p as usize] as usize] = i as u32;
                fill[p as usize] += 1;
            }
        }
        PointEdges { offsets, edges }
    }

    /// The edges at point `p`.
    pub fn at(&self, p: usize) -> &[u32] {
        &self.edges[self.offsets[p] as usize..self.offsets[p + 1] as usize]
    }
}

/// The other end of edge `e` from point `p`.
#[inline]
pub fn other(table: &EdgeTable, e: u32, p: u32) -> u32 {
    let [a, b] = table.edges[e as usize];
    if a == p { b } else { a }
}
