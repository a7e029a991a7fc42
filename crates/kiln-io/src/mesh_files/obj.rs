//! Wavefront OBJ text: `v` per point, `vt` and `vn` from `uv` and `N` (per vertex or per
//! point), `f` per polygon and `l` per polyline, indices from 1.

use super::corners::class_of;
use kiln_mesh::{AttribClass, Mesh, PrimKind};
use std::fmt::Write;

/// The OBJ text of `mesh`.
pub fn encode_obj(mesh: &Mesh) -> Vec<u8> {
    let mut s = String::with_capacity(mesh.points.len() * 40 + mesh.vertices.len() * 12);
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
    s.into_bytes()
}
