//! glTF 2.0 binary (`.glb`) through `gltf-json`: one scene, one node of the mesh's own
//! geometry and one node per packed instance (the instances of one packed set share one glTF
//! mesh); each glTF mesh is one indexed triangle primitive with `POSITION` (with its min and max), `NORMAL` (from `N`,
//! made unit length) and `TEXCOORD_0` (from `uv`, flipped to glTF's top-left origin) when
//! the mesh has them. Polylines are not written.

use super::corners::Corners;
use gltf_json as json;
use json::validation::Checked::Valid;
use json::validation::USize64;
use kiln_mesh::Mesh;
use std::borrow::Cow;
use std::collections::BTreeMap;

/// Why a glb could not be made.
#[derive(Debug, thiserror::Error)]
#[error("cannot encode the mesh as glTF: {0}")]
pub struct GlbError(String);

fn view(
    root: &mut json::Root,
    offset: usize,
    len: usize,
    target: json::buffer::Target,
) -> json::Index<json::buffer::View> {
    root.push(json::buffer::View {
        buffer: json::Index::new(0),
        byte_length: USize64::from(len),
        byte_offset: Some(USize64::from(offset)),
        byte_stride: None,
        extensions: Default::default(),
        extras: Default::default(),
        target: Some(Valid(target)),
    })
}

fn accessor(
    root: &mut json::Root,
    view: json::Index<json::buffer::View>,
    count: usize,
    component: json::accessor::ComponentType,
    ty: json::accessor::Type,
    bounds: Option<(Vec<f32>, Vec<f32>)>,
) -> json::Index<json::Accessor> {
    let (min, max) = match bounds {
        Some((lo, hi)) => (Some(json::Value::from(lo)), Some(json::Value::from(hi))),
        None => (None, None),
    };
    root.push(json::Accessor {
        buffer_view: Some(view),
        byte_offset: Some(USize64(0)),
        count: USize64::from(count),
        component_type: Valid(json::accessor::GenericComponentType(component)),
        extensions: Default::default(),
        extras: Default::default(),
        type_: Valid(ty),
        min,
        max,
        normalized: false,
        sparse: None,
    })
}

fn push_f32s(bin: &mut Vec<u8>, values: impl Iterator<Item = f32>) -> (usize, usize) {
    let start = bin.len();
    values.for_each(|f| bin.extend(f.to_le_bytes()));
    (start, bin.len() - start)
}

/// Write `mesh`'s triangles into `root` and `bin` as one glTF mesh (none when it has no
/// triangles).
fn push_mesh(
    root: &mut json::Root,
    bin: &mut Vec<u8>,
    mesh: &Mesh,
) -> Result<Option<json::Index<json::Mesh>>, GlbError> {
    let c = Corners::of(mesh).map_err(|e| GlbError(e.to_string()))?;
    // The positions' bounds are written as JSON numbers, which are finite.
    if let Some((i, p)) = c.positions.iter().enumerate().find(|(_, p)| !p.is_finite()) {
        return Err(GlbError(format!(
            "point {i} is at {p}: a glb holds finite positions only"
        )));
    }
    if c.triangles.is_empty() {
        return Ok(None);
    }
    {
        use json::accessor::{ComponentType as C, Type as T};
        use json::buffer::Target::{ArrayBuffer, ElementArrayBuffer};
        let mut attributes = BTreeMap::new();
        let n = c.positions.len();
        let (lo, hi) = c.positions.iter().fold(
            (
                glam::Vec3::splat(f32::INFINITY),
                glam::Vec3::splat(f32::NEG_INFINITY),
            ),
            |(lo, hi), &p| (lo.min(p), hi.max(p)),
        );
        let (o, l) = push_f32s(bin, c.positions.iter().flat_map(|p| p.to_array()));
        let v = view(root, o, l, ArrayBuffer);
        let bounds = Some((lo.to_array().to_vec(), hi.to_array().to_vec()));
        let a = accessor(root, v, n, C::F32, T::Vec3, bounds);
        attributes.insert(Valid(json::mesh::Semantic::Positions), a);
        if let Some(normals) = &c.normals {
            let unit = normals
                .iter()
                .map(|v| v.try_normalize().unwrap_or(glam::Vec3::Y));
            let (o, l) = push_f32s(bin, unit.flat_map(|p| p.to_array()));
            let v = view(root, o, l, ArrayBuffer);
            let a = accessor(root, v, n, C::F32, T::Vec3, None);
            attributes.insert(Valid(json::mesh::Semantic::Normals), a);
        }
        if let Some(uvs) = &c.uvs {
            let (o, l) = push_f32s(bin, uvs.iter().flat_map(|t| [t.x, 1.0 - t.y]));
            let v = view(root, o, l, ArrayBuffer);
            let a = accessor(root, v, n, C::F32, T::Vec2, None);
            attributes.insert(Valid(json::mesh::Semantic::TexCoords(0)), a);
        }
        let start = bin.len();
        c.triangles
            .iter()
            .flatten()
            .for_each(|i| bin.extend(i.to_le_bytes()));
        let v = view(root, start, bin.len() - start, ElementArrayBuffer);
        let indices = accessor(root, v, c.triangles.len() * 3, C::U32, T::Scalar, None);
        let primitive = json::mesh::Primitive {
            attributes,
            extensions: Default::default(),
            extras: Default::default(),
            indices: Some(indices),
            material: None,
            mode: Valid(json::mesh::Mode::Triangles),
            targets: None,
        };
        let m = root.push(json::Mesh {
            extensions: Default::default(),
            extras: Default::default(),
            primitives: vec![primitive],
            weights: None,
        });
        Ok(Some(m))
    }
}

/// The glb bytes of `mesh`: its own triangles as one node, and each packed set's source as
/// one glTF mesh shared by one node per instance (its transform as translation, rotation
/// and scale).
pub fn encode_glb(mesh: &Mesh) -> Result<Vec<u8>, GlbError> {
    let mut root = json::Root::default();
    let mut bin = Vec::new();
    let mut nodes = Vec::new();
    if let Some(m) = push_mesh(&mut root, &mut bin, mesh)? {
        nodes.push(root.push(json::Node {
            mesh: Some(m),
            ..Default::default()
        }));
    }
    for set in &mesh.packed {
        let Some(m) = push_mesh(&mut root, &mut bin, &set.source)? else {
            continue;
        };
        for (k, t) in set.transforms.iter().enumerate() {
            let (s, r, p) = t.to_scale_rotation_translation();
            if !(s.is_finite() && r.is_finite() && p.is_finite()) {
                return Err(GlbError(format!(
                    "instance {k} has a transform that is not finite"
                )));
            }
            nodes.push(root.push(json::Node {
                mesh: Some(m),
                translation: Some(p.to_array()),
                rotation: Some(json::scene::UnitQuaternion(r.normalize().to_array())),
                scale: Some(s.to_array()),
                ..Default::default()
            }));
        }
    }
    if !bin.is_empty() {
        root.push(json::Buffer {
            byte_length: USize64::from(bin.len()),
            extensions: Default::default(),
            extras: Default::default(),
            uri: None,
        });
    }
    // A scene lists at least one node (and `gltf` reads no scene without its `nodes`): a
    // mesh without triangles is a file with no scene.
    if !nodes.is_empty() {
        let scene = root.push(json::Scene {
            extensions: Default::default(),
            extras: Default::default(),
            nodes,
        });
        root.scene = Some(scene);
    }
    root.asset.generator = Some("kiln".into());
    let text = json::serialize::to_string(&root).map_err(|e| GlbError(e.to_string()))?;
    while bin.len() % 4 != 0 {
        bin.push(0);
    }
    let glb = gltf::binary::Glb {
        header: gltf::binary::Header {
            magic: *b"glTF",
            version: 2,
            // `to_vec` works out the length itself.
            length: 0,
        },
        json: Cow::Owned(text.into_bytes()),
        bin: (!bin.is_empty()).then_some(Cow::Owned(bin)),
    };
    glb.to_vec().map_err(|e| GlbError(e.to_string()))
}
