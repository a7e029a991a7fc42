//! Booleans of closed meshes through `boolmesh` (a pure-Rust port of Manifold's boolean):
//! union, difference and intersection. Both meshes are fanned into triangles and must be
//! closed 2-manifolds; the result is triangles with no attributes (the faces are new).

use crate::geometry::Mesh;
use boolmesh::prelude::{Manifold, OpType, compute_boolean};
use glam::Vec3;

/// Which boolean.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BooleanOp {
    /// Inside either.
    Union,
    /// Inside the first and not the second.
    Difference,
    /// Inside both.
    Intersection,
}

/// Why a boolean failed.
#[derive(Debug, thiserror::Error)]
pub enum BooleanError {
    /// An input is not a closed 2-manifold.
    #[error("input `{input}` is not a closed manifold mesh: {message}")]
    Input {
        /// `a` or `b`.
        input: &'static str,
        /// What the boolean library said.
        message: String,
    },
    /// The boolean itself failed.
    #[error("the boolean failed: {0}")]
    Failed(String),
}

fn manifold(mesh: &Mesh, input: &'static str) -> Result<Manifold, BooleanError> {
    let pos: Vec<f64> = mesh
        .points
        .iter()
        .flat_map(|p| p.as_dvec3().to_array())
        .collect();
    let idx: Vec<usize> = mesh
        .triangles()
        .into_iter()
        .flatten()
        .map(|i| i as usize)
        .collect();
    Manifold::new(&pos, &idx).map_err(|message| BooleanError::Input { input, message })
}

/// `a` `op` `b`.
pub fn boolean(a: &Mesh, b: &Mesh, op: BooleanOp) -> Result<Mesh, BooleanError> {
    let (ma, mb) = (manifold(a, "a")?, manifold(b, "b")?);
    let op = match op {
        BooleanOp::Union => OpType::Add,
        BooleanOp::Difference => OpType::Subtract,
        BooleanOp::Intersection => OpType::Intersect,
    };
    let r = compute_boolean(&ma, &mb, op).map_err(BooleanError::Failed)?;
    let mut out = Mesh::new();
    out.points =
        r.ps.iter()
            .map(|p| Vec3::new(p.x as f32, p.y as f32, p.z as f32))
            .collect();
    let n = out.points.len();
    for t in r.hs.chunks_exact(3) {
        let tri = [t[0].tail, t[1].tail, t[2].tail];
        if tri.iter().all(|&i| i < n) {
            out.add_polygon(&tri.map(|i| i as u32));
        }
    }
    super::restructure::compact(&mut out);
    Ok(out)
}
