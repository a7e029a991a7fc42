//! Wavefront OBJ text: `v` per point, `vt` and `vn` from `uv` and `N` (per vertex or per
//! point), `f` per polygon and `l` per polyline, indices from 1.

use super::corners::class_of;
use kiln_core::memory::{MemoryError, try_vec};
use kiln_mesh::{AttribClass, Mesh, PrimKind};
use std::fmt::Write;

/// The OBJ text of `mesh`, its buffer reserved under the memory budget.
pub fn encode_obj(mesh: &Mesh) -> Result<Vec<u8>, MemoryError> {
    let guess = (mesh.points.len() * 40).saturating_add(mesh.vertices.len() * 12);
    let buffer = try_vec(guess, || {
        format!(
            "the OBJ text of a mesh of {} points and {} vertices",
            mesh.points.len(),
            mesh.vertices.len()
        )
    })?;
    // An empty vector is UTF-8; its reserved room stays.
    let mut s = String::from_utf8(buffer).unwrap_or_default();
    s.push_str("# written by kiln\n");
    for p in &mesh.points {
        let _ = writeln!(s, "v {} {} {}", p.x, p.y, p.z);
    }
    let uv = class_of(mesh, "uv", 2);
    let n = class_of(mesh, "N", 3);
    if let Some(c) = uv {
        for i in 0..mesh.count(c) {
            let t = mesh
                .attrs(c)
                .get("uv")
                .map(|a| a.get4(i))
                .unwrap_or_default();
            let _ = writeln!(s, "vt {} {}", t.x, t.y);
        }
    }
    if let Some(c) = n {
        for i in 0..mesh.count(c) {
            let t = mesh
                .attrs(c)
                .get("N")
                .map(|a| a.get4(i))
                .unwrap_or_default();
            let _ = writeln!(s, "vn {} {} {}", t.x, t.y, t.z);
        }
    }
    let index = |c: Option<AttribClass>, v: usize| match c {
        Some(AttribClass::Point) => Some(mesh.vertices[v] as usize + 1),
        Some(_) => Some(v + 1),
        None => None,
    };
    for p in &mesh.prims {
        s.push(if p.kind == PrimKind::Polygon {
            'f'
        } else {
            'l'
        });
        for v in p.range() {
            let _ = write!(s, " {}", mesh.vertices[v] + 1);
            if p.kind == PrimKind::Polygon {
                match (index(uv, v), index(n, v)) {
                    (Some(t), Some(k)) => {
                        let _ = write!(s, "/{t}/{k}");
                    }
                    (Some(t), None) => {
                        let _ = write!(s, "/{t}");
                    }
                    (None, Some(k)) => {
                        let _ = write!(s, "//{k}");
                    }
                    (None, None) => {}
                }
            }
        }
        s.push('\n');
    }
    Ok(s.into_bytes())
}
