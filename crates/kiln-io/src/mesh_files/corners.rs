//! A mesh as the triangle lists that glTF, STL and the preview take: one corner per
//! polygon vertex, with its position, normal and texture coordinate resolved from whichever
//! class holds them (a vertex attribute wins over a point attribute).

use glam::{Vec2, Vec3};
use kiln_core::memory::{MemoryError, try_vec};
use kiln_mesh::{AttribClass, Mesh, PrimKind};

/// Per-corner arrays and the triangles over them.
pub(crate) struct Corners {
    /// Position of each corner.
    pub positions: Vec<Vec3>,
    /// Normal of each corner, when the mesh has `N`.
    pub normals: Option<Vec<Vec3>>,
    /// Texture coordinate of each corner, when the mesh has `uv`.
    pub uvs: Option<Vec<Vec2>>,
    /// Triangles, as corner indices (polygons fanned from their first vertex).
    pub triangles: Vec<[u32; 3]>,
}

/// Where attribute `name` of a mesh lives: a vertex attribute, else a point attribute.
pub(crate) fn class_of(mesh: &Mesh, name: &str, width: usize) -> Option<AttribClass> {
    [AttribClass::Vertex, AttribClass::Point]
        .into_iter()
        .find(|&c| mesh.attrs(c).get(name).is_some_and(|a| a.width() == width))
}

/// Value `i` (a vertex index) of attribute `name` held on `class`.
fn at(mesh: &Mesh, name: &str, class: AttribClass, vertex: usize) -> glam::Vec4 {
    let i = match class {
        AttribClass::Point => mesh.vertices[vertex] as usize,
        _ => vertex,
    };
    mesh.attrs(class)
        .get(name)
        .map_or(glam::Vec4::ZERO, |a| a.get4(i))
}

impl Corners {
    /// The corners of every polygon of `mesh` (polylines have none), their arrays reserved
    /// under the memory budget.
    pub fn of(mesh: &Mesh) -> Result<Corners, MemoryError> {
        let n_class = class_of(mesh, "N", 3);
        let uv_class = class_of(mesh, "uv", 2);
        let n = mesh.vertices.len();
        let what =
            |arr: &'static str| move || format!("the corner {arr} of a mesh of {n} vertices");
        let mut c = Corners {
            positions: try_vec(n, what("positions"))?,
            normals: n_class.map(|_| try_vec(n, what("normals"))).transpose()?,
            uvs: uv_class
                .map(|_| try_vec(n, what("texture coordinates")))
                .transpose()?,
            triangles: try_vec(n, what("triangles"))?,
        };
        for p in &mesh.prims {
            if p.kind != PrimKind::Polygon || p.count < 3 {
                continue;
            }
            let base = c.positions.len() as u32;
            for v in p.range() {
                c.positions.push(mesh.points[mesh.vertices[v] as usize]);
                if let (Some(cl), Some(n)) = (n_class, c.normals.as_mut()) {
                    n.push(at(mesh, "N", cl, v).truncate());
                }
                if let (Some(cl), Some(uv)) = (uv_class, c.uvs.as_mut()) {
                    uv.push(at(mesh, "uv", cl, v).truncate().truncate());
                }
            }
            for k in 1..p.count - 1 {
                c.triangles.push([base, base + k, base + k + 1]);
            }
        }
        Ok(c)
    }
}
