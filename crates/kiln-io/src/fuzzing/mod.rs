//! The entry points of the fuzz targets (the `fuzz/` crate, run with `cargo fuzz`), kept here
//! so that a normal `cargo test` feeds the same functions the kept corpus
//! (`fuzz/corpus/<target>/`). The `graph_file` target is `kiln_doc::fuzzing`'s. Each takes any bytes and must neither panic nor hang; what
//! a decoder accepts must also survive its round trip.
//!
//! The targets: `snapshot` (snapshot files, render manifests and render
//! states), `value_codec`, `cache_entry`, the domains' file decoders ([`wav`], [`obj`],
//! [`gltf`], [`image_file`]), [`evaluate`] (a graph generated from the bytes, run by
//! every evaluator) and `render_state_run` ([`render_state_run`]: a render state whose
//! heavy values, rigid-body worlds among them, are run through the ops that take them).

mod files;
mod generated;
mod image_file;
mod state_run;

pub use files::{gltf, obj, wav};
pub use generated::{evaluate, generated_graph};
pub use image_file::image_file;
pub use state_run::render_state_run;

use kiln_core::key::Key;
use kiln_core::registry::Registry;

/// The state files of recurrent runs: a snapshot file (JSON), a render's manifest and its
/// latch state (binary). A snapshot that parses writes a file that parses to the same tick;
/// a render state that decodes encodes to bytes that decode to the same state.
pub fn snapshot(bytes: &[u8], registry: &Registry) {
    if let Ok(text) = std::str::from_utf8(bytes)
        && let Ok(s) = crate::parse_snapshot(text)
        && let Ok(json) = crate::snapshot_json(&s)
    {
        match crate::parse_snapshot(&json) {
            Ok(back) => assert_eq!(back.tick, s.tick, "the tick changed on a round trip"),
            Err(e) => panic!("a snapshot written does not parse: {e}\n{json}"),
        }
    }
    let _ = crate::render_manifest::parse_manifest(bytes);
    if let Ok((fp, s)) = crate::render_state::decode_state(bytes, registry) {
        let Some(again) = crate::render_state::encode_state(fp, &s, registry) else {
            panic!("a decoded render state has no binary form");
        };
        match crate::render_state::decode_state(&again, registry) {
            Ok((fp2, s2)) => {
                assert_eq!((fp2, s2.tick), (fp, s.tick), "a render state changed");
                let hashes = |s: &kiln_core::recurrence::Snapshot| -> Vec<_> {
                    s.values
                        .iter()
                        .map(|(k, v)| (k.clone(), v.content_hash()))
                        .collect()
                };
                assert_eq!(hashes(&s2), hashes(&s), "a render state's values changed");
            }
            Err(e) => panic!("a render state written does not decode: {e}"),
        }
    }
}

/// The binary value codec (cache entries' payloads, baked blobs): a value that decodes has a
/// binary form; when that form is not the bytes read (a codec may accept a longer spelling,
/// like a wave's tile without its weight of 1), it decodes to the same content and encodes
/// to itself.
pub fn value_codec(bytes: &[u8], registry: &Registry) {
    let Ok(v) = crate::decode_value(bytes, registry) else {
        return;
    };
    let Some(again) = crate::encode_value(&v, registry) else {
        panic!("a decoded value has no binary form: {v:?}");
    };
    if again != bytes {
        let back = match crate::decode_value(&again, registry) {
            Ok(back) => back,
            Err(e) => panic!("a value's binary form does not decode: {e}"),
        };
        assert_eq!(back.content_hash(), v.content_hash(), "a value changed");
        let third = crate::encode_value(&back, registry);
        assert_eq!(third.as_ref(), Some(&again), "a binary form is not stable");
    }
}

/// A cache entry file: the header checked against the key it names, then the payload
/// decoded.
pub fn cache_entry(bytes: &[u8], registry: &Registry) {
    let key = bytes
        .get(32..48)
        .and_then(|k| <[u8; 16]>::try_from(k).ok())
        .map_or(Key::default(), |k| Key(u128::from_le_bytes(k)));
    if let Ok(payload) = crate::cache::check_entry(key, bytes) {
        value_codec(payload, registry);
    }
}
