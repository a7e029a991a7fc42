//! Checks of a glTF file made before `gltf` reads it: where `gltf` trusts the file (an
//! index, a length, an accessor's layout) with unchecked arithmetic or lookups, which
//! panic in a debug build and may read the wrong bytes in a release one, the file is
//! refused first.

use gltf::accessor::{DataType, Dimensions};
use gltf::mesh::Semantic;

/// The accessors a triangle primitive is read through are of the layout `gltf`'s reader
/// takes them to have and lie within their buffer views: `POSITION` and `NORMAL` three
/// floats, `TEXCOORD_0` two floats or normalised bytes or shorts, indices unsigned scalars;
/// at least one element each; not sparse.
pub(super) fn primitive_readable(prim: &gltf::Primitive<'_>) -> Result<(), String> {
    use DataType::{F32, U8, U16, U32};
    let attributes = [
        (Semantic::Positions, Dimensions::Vec3, &[F32][..]),
        (Semantic::Normals, Dimensions::Vec3, &[F32][..]),
        (
            Semantic::TexCoords(0),
            Dimensions::Vec2,
            &[F32, U8, U16][..],
        ),
    ];
    for (semantic, dims, types) in attributes {
        if let Some(acc) = prim.get(&semantic) {
            readable(&acc, &semantic.to_string(), dims, types)?;
        }
    }
    if let Some(acc) = prim.indices() {
        readable(&acc, "indices", Dimensions::Scalar, &[U8, U16, U32])?;
    }
    Ok(())
}

/// Accessor `acc`, read as `what`, is `dims` of one of `types` and within its view.
fn readable(
    acc: &gltf::Accessor<'_>,
    what: &str,
    dims: Dimensions,
    types: &[DataType],
) -> Result<(), String> {
    let at = format!("accessor {} ({what})", acc.index());
    if acc.sparse().is_some() {
        return Err(format!("{at} is sparse: kiln reads only plain accessors"));
    }
    if acc.dimensions() != dims || !types.contains(&acc.data_type()) {
        return Err(format!(
            "{at} holds {:?} of {:?}, not {dims:?} of one of {types:?}",
            acc.dimensions(),
            acc.data_type()
        ));
    }
    if acc.count() == 0 {
        return Err(format!("{at} has no elements"));
    }
    let Some(view) = acc.view() else {
        return Ok(());
    };
    let size = acc.size();
    let stride = view.stride().unwrap_or(size);
    let end = stride
        .checked_mul(acc.count() - 1)
        .and_then(|n| n.checked_add(size))
        .and_then(|n| n.checked_add(acc.offset()));
    let view_fits = view.offset().checked_add(view.length()).is_some();
    match end {
        Some(end) if stride >= size && view_fits && end <= view.length() => Ok(()),
        _ => Err(format!(
            "{at}: {} elements of {size} bytes every {stride} from byte {} do not fit in \
             its buffer view of {} bytes",
            acc.count(),
            acc.offset(),
            view.length()
        )),
    }
}

/// Every primitive's `POSITION` names an accessor the file has. `gltf`'s validation looks
/// that accessor up without a bounds check (and panics), so this comes first.
pub(super) fn positions_exist(root: &gltf::json::Root) -> Result<(), String> {
    use gltf::json::validation::Checked;
    let accessors = root.accessors.len();
    for (m, mesh) in root.meshes.iter().enumerate() {
        for (p, prim) in mesh.primitives.iter().enumerate() {
            let position = prim
                .attributes
                .get(&Checked::Valid(gltf::json::mesh::Semantic::Positions));
            if let Some(i) = position
                && i.value() >= accessors
            {
                return Err(format!(
                    "meshes[{m}].primitives[{p}]: POSITION names accessor {}, but the file \
                     has {accessors}",
                    i.value()
                ));
            }
        }
    }
    Ok(())
}

/// A glTF binary's header gives a length of at least the header's 12 bytes. `gltf`
/// subtracts the header's size from it unchecked (and panics in a debug build), so this
/// comes first.
pub(super) fn length_fits(bytes: &[u8]) -> Result<(), String> {
    let Some(length) = bytes
        .strip_prefix(b"glTF")
        .and_then(|rest| rest.get(4..8))
        .and_then(|l| <[u8; 4]>::try_from(l).ok())
        .map(u32::from_le_bytes)
    else {
        return Ok(());
    };
    if length < 12 {
        return Err(format!(
            "the glb header gives a length of {length} bytes, shorter than the header itself"
        ));
    }
    Ok(())
}
