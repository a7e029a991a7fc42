//! PLY, binary little-endian: a `vertex` element per point (x, y, z, and nx, ny, nz when
//! the mesh has point normals `N`) and a `face` element per polygon (a uchar count, int
//! indices; a polygon of more than 255 points is fanned into triangles).

use kiln_mesh::{Mesh, PrimKind};

/// The PLY bytes of `mesh`.
pub fn encode_ply(mesh: &Mesh) -> Vec<u8> {
    let normals = mesh.point_attrs.vec3("N");
    let mut faces: Vec<Vec<u32>> = Vec::with_capacity(mesh.prims.len());
    for (i, p) in mesh.prims.iter().enumerate() {
        if p.kind != PrimKind::Polygon || p.count < 3 {
            continue;
        }
        let pts = mesh.prim_points(i);
        if pts.len() <= 255 {
            faces.push(pts.to_vec());
        } else {
            faces.extend((1..pts.len() - 1).map(|k| vec![pts[0], pts[k], pts[k + 1]]));
        }
    }
    let mut head = String::from("ply\nformat binary_little_endian 1.0\ncomment written by kiln\n");
    head.push_str(&format!("element vertex {}\n", mesh.points.len()));
    head.push_str("property float x\nproperty float y\nproperty float z\n");
    if normals.is_some() {
        head.push_str("property float nx\nproperty float ny\nproperty float nz\n");
    }
    head.push_str(&format!("element face {}\n", faces.len()));
    head.push_str("property list uchar int vertex_indices\nend_header\n");
    let mut out = head.into_bytes();
    for (i, p) in mesh.points.iter().enumerate() {
        let mut fields = p.to_array().to_vec();
        if let Some(n) = normals {
            fields.extend(n[i].to_array());
        }
        fields.iter().for_each(|f| out.extend(f.to_le_bytes()));
    }
    for f in faces {
        out.push(f.len() as u8);
        f.iter().for_each(|&i| out.extend((i as i32).to_le_bytes()));
    }
    out
}
