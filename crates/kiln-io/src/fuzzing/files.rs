//! Fuzz entries of the file decoders the domains added: WAV audio, OBJ and glTF meshes.
//! What a decoder accepts must also survive being written again and read back.

use crate::mesh_files::{decode_glb, decode_obj, encode_glb, encode_obj, encode_ply, encode_stl};
use kiln_mesh::Mesh;

/// A WAV file's bytes: decoded; samples that decode and encode again (in the file's own
/// format) decode to the same bits.
pub fn wav(bytes: &[u8]) {
    let Ok(data) = crate::wav::decode_wav(bytes) else {
        return;
    };
    let channels: Vec<&[f64]> = data.channels.iter().map(Vec::as_slice).collect();
    // Refusals (a rate of 0, a NaN sample, channels of unequal length) are fine; a file
    // that is written must read back.
    let Ok(again) = crate::wav::encode_wav(&channels, data.sample_rate, data.format) else {
        return;
    };
    match crate::wav::decode_wav(&again) {
        Ok(back) => {
            assert_eq!(back.sample_rate, data.sample_rate, "the rate changed");
            assert_eq!(back.format, data.format, "the format changed");
            let bits = |d: &crate::wav::WavData| -> Vec<Vec<u64>> {
                d.channels
                    .iter()
                    .map(|c| c.iter().map(|x| x.to_bits()).collect())
                    .collect()
            };
            assert_eq!(bits(&back), bits(&data), "samples changed on a round trip");
        }
        Err(e) => panic!("a WAV file written from decoded samples does not read: {e}"),
    }
}

/// An OBJ file's bytes: decoded; a mesh that decodes is written in every mesh format and
/// previewed without a panic, and its OBJ text reads back with the same points and faces.
pub fn obj(bytes: &[u8]) {
    let Ok(mesh) = decode_obj(bytes) else {
        return;
    };
    write_every_format(&mesh);
    // A decoded mesh fits the fuzzer's memory: its text is reserved.
    let Ok(text) = encode_obj(&mesh) else {
        return;
    };
    match decode_obj(&text) {
        Ok(back) => assert_same_shape(&mesh, &back),
        Err(e) => panic!("an OBJ file written from a decoded mesh does not read: {e}"),
    }
}

/// A glTF file's bytes (binary or JSON): decoded; a mesh that decodes is written in every
/// mesh format and previewed without a panic, and its glTF binary reads back with the same
/// triangles (the writer keeps only the points that corners use, one per distinct corner).
pub fn gltf(bytes: &[u8]) {
    let Ok(mesh) = decode_glb(bytes) else {
        return;
    };
    write_every_format(&mesh);
    if let Ok(glb) = encode_glb(&mesh) {
        match decode_glb(&glb) {
            Ok(back) => assert_eq!(back.prims.len(), mesh.prims.len(), "triangles changed"),
            Err(e) => panic!("a glTF file written from a decoded mesh does not read: {e}"),
        }
    }
}

/// Every writer of a mesh, and a small preview.
fn write_every_format(mesh: &Mesh) {
    let _ = encode_ply(mesh);
    let _ = encode_stl(mesh);
    let _ = crate::mesh_files::render_preview(mesh, 8);
}

fn assert_same_shape(a: &Mesh, b: &Mesh) {
    assert_eq!(a.points.len(), b.points.len(), "points changed");
    assert_eq!(a.prims.len(), b.prims.len(), "faces changed");
    assert_eq!(a.vertices, b.vertices, "face corners changed");
}
