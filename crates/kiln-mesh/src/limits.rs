//! Size limits, checked before any memory is taken: a generator or an operation computes the
//! size of what it would make from its params and inputs and refuses a mesh over a limit.

use kiln_core::op::OpError;

/// The most points a mesh may have (50 million: about 600 MB of positions).
pub const MAX_POINTS: u64 = 50_000_000;
/// The most primitives a mesh may have.
pub const MAX_PRIMS: u64 = 50_000_000;
/// The most vertices a mesh may have (four per primitive on average).
pub const MAX_VERTICES: u64 = 200_000_000;

/// A mesh that would be over a size limit.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("node `{node}`: the mesh would have {count} {what}, over the limit of {limit} ({name})")]
pub struct LimitError {
    /// The node making the mesh.
    pub node: String,
    /// `points`, `primitives` or `vertices`.
    pub what: &'static str,
    /// How many it would have.
    pub count: u64,
    /// The limit.
    pub limit: u64,
    /// The limit's name (`kiln_mesh::MAX_POINTS`).
    pub name: &'static str,
}

impl From<LimitError> for OpError {
    fn from(e: LimitError) -> OpError {
        OpError::new(e.to_string())
    }
}

/// Check that a mesh of `points` points, `prims` primitives and `vertices` vertices
/// (counts as computed, saturating) fits the limits; `node` names the node in the error.
pub fn check_size(node: &str, points: u64, prims: u64, vertices: u64) -> Result<(), LimitError> {
    for (what, count, limit, name) in [
        ("points", points, MAX_POINTS, "kiln_mesh::MAX_POINTS"),
        ("primitives", prims, MAX_PRIMS, "kiln_mesh::MAX_PRIMS"),
        (
            "vertices",
            vertices,
            MAX_VERTICES,
            "kiln_mesh::MAX_VERTICES",
        ),
    ] {
        if count > limit {
            return Err(LimitError {
                node: node.into(),
                what,
                count,
                limit,
                name,
            });
        }
    }
    Ok(())
}
