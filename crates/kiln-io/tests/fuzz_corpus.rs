//! The fuzz corpus kept in the repository (`fuzz/corpus/<target>/`) replayed through the
//! fuzz targets' own entry functions (`kiln_io::fuzzing`; the `graph_file` target is
//! replayed by kiln-doc's own test), so a plain `cargo test` checks
//! that no kept input panics (or breaks a round trip). Each target's corpus also holds
//! damaged forms of its files, made here: every prefix of each file, and each file with
//! every byte flipped in turn (for files of at most 2 KiB); `evaluate`, whose every run is a
//! dozen evaluations, is replayed without them.

mod corpus;
mod domains;

use corpus::corpus;
use std::path::Path;

use kiln_core::registry::Registry;

type Entry = fn(&[u8], &Registry);

const TARGETS: [(&str, Entry); 9] = [
    ("snapshot", kiln_io::fuzzing::snapshot),
    ("value_codec", kiln_io::fuzzing::value_codec),
    ("cache_entry", kiln_io::fuzzing::cache_entry),
    ("evaluate", kiln_io::fuzzing::evaluate),
    ("wav", |bytes, _| kiln_io::fuzzing::wav(bytes)),
    ("mesh_obj", |bytes, _| kiln_io::fuzzing::obj(bytes)),
    ("mesh_gltf", |bytes, _| kiln_io::fuzzing::gltf(bytes)),
    ("image_file", |bytes, _| kiln_io::fuzzing::image_file(bytes)),
    ("render_state_run", kiln_io::fuzzing::render_state_run),
];

#[test]
fn every_corpus_file_and_its_damaged_forms_pass_their_target() {
    let reg = domains::every_domain();
    for (target, entry) in TARGETS {
        let files = corpus(target);
        assert!(files.len() >= 3, "{target}: {} corpus files", files.len());
        for (name, bytes) in &files {
            entry(bytes, &reg);
            // A run of `evaluate` is a dozen evaluations of a graph: its corpus is replayed
            // whole, the fuzzer's own mutations having tried the damaged forms.
            if target == "evaluate" {
                continue;
            }
            // Each image that decodes is written in four formats and read back: only the
            // hand-made seeds are replayed damaged, the fuzzer's finds whole.
            if target == "image_file" && !name.starts_with("seed-") {
                continue;
            }
            for cut in 0..bytes.len() {
                entry(&bytes[..cut], &reg);
            }
            if bytes.len() <= 2048 {
                let mut flipped = bytes.clone();
                for i in 0..flipped.len() {
                    flipped[i] ^= 0x5a;
                    entry(&flipped, &reg);
                    flipped[i] ^= 0x5a;
                }
            }
            eprintln!(
                "{target}/{name}: {} bytes and its damaged forms pass",
                bytes.len()
            );
        }
    }
}

#[test]
fn the_corpus_decodes_what_it_was_made_of() {
    // The kept files are not all refused: a decoder that refused everything would pass the
    // replay above without testing anything.
    let reg = domains::every_domain();
    // The files made by hand (`.bin`, `.json`); the fuzzer's own are named by their hash.
    for (name, bytes) in corpus("value_codec")
        .into_iter()
        .filter(|(n, _)| n.ends_with(".bin"))
    {
        assert!(
            kiln_io::decode_value(&bytes, &reg).is_ok(),
            "value_codec/{name}"
        );
    }
    let state = corpus("snapshot")
        .into_iter()
        .find(|(n, _)| n == "render.state")
        .unwrap();
    assert!(kiln_io::render_state::decode_state(&state.1, &reg).is_ok());
    // The seeds of `render_state_run` are states saved by `kiln render` from rigid-body
    // graphs (examples/stack.json with 2 and 3 boxes, a pile of 2), rapier's world inside.
    for (name, bytes) in corpus("render_state_run")
        .into_iter()
        .filter(|(n, _)| n.starts_with("seed-"))
    {
        assert!(
            kiln_io::render_state::decode_state(&bytes, &reg).is_ok(),
            "render_state_run/{name}"
        );
    }
    // The seeds of the file decoders (named `seed-*`; the fuzzer's own finds are named by
    // their hash) are files of their format.
    let seeds = |target| {
        corpus(target)
            .into_iter()
            .filter(|(n, _)| n.starts_with("seed-"))
            .collect::<Vec<_>>()
    };
    for (name, bytes) in seeds("wav") {
        assert!(kiln_io::wav::decode_wav(&bytes).is_ok(), "wav/{name}");
    }
    for (name, bytes) in seeds("mesh_obj") {
        let mesh = kiln_io::mesh_files::decode_obj(&bytes);
        assert!(mesh.is_ok_and(|m| !m.prims.is_empty()), "mesh_obj/{name}");
    }
    for (name, bytes) in seeds("mesh_gltf") {
        let mesh = kiln_io::mesh_files::decode_glb(&bytes);
        assert!(mesh.is_ok_and(|m| !m.prims.is_empty()), "mesh_gltf/{name}");
    }
    for (name, bytes) in seeds("image_file") {
        let image = kiln_io::image_files::decode_image(&bytes, Path::new(&name));
        assert!(image.is_ok_and(|i| i.width > 0), "image_file/{name}");
    }
    for target in ["wav", "mesh_obj", "mesh_gltf", "image_file"] {
        assert!(!seeds(target).is_empty(), "{target} has no seed");
    }
}
