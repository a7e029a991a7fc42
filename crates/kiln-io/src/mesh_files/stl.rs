//! Binary STL: an 80-byte header, a u32 triangle count, then per triangle its facet normal
//! (from its corners' winding), its three corners and a zero u16.

use super::corners::Corners;
use kiln_core::memory::{MemoryError, try_vec};
use kiln_mesh::Mesh;

/// The STL bytes of `mesh`'s polygons, fanned into triangles, every buffer reserved under the
/// memory budget.
pub fn encode_stl(mesh: &Mesh) -> Result<Vec<u8>, MemoryError> {
    let c = Corners::of(mesh)?;
    let bytes = 84 + c.triangles.len() * 50;
    let mut out = try_vec(bytes, || {
        format!("the STL of {} triangles", c.triangles.len())
    })?;
    out.resize(80, 0);
    out[..16].copy_from_slice(b"written by kiln ");
    out.extend((c.triangles.len() as u32).to_le_bytes());
    for t in &c.triangles {
        let [a, b, p] = t.map(|i| c.positions[i as usize]);
        let n = (b - a).cross(p - a).normalize_or_zero();
        for v in [n, a, b, p] {
            v.to_array()
                .iter()
                .for_each(|f| out.extend(f.to_le_bytes()));
        }
        out.extend([0, 0]);
    }
    Ok(out)
}
