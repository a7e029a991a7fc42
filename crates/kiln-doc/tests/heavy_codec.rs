//! Heavy values are stored through the codecs their types register, so kiln-io stores types it
//! has never heard of: a heavy type defined only in this test round-trips through the disk
//! cache and a baked graph's blobs once its codec is in the registry, a program without the
//! codec leaves its entries alone, and the standard heavy types keep the bytes they had
//! before codecs existed.

#[path = "../../kiln-io/tests/domains/mod.rs"]
mod domains;

use kiln_core::cache::{Backing, KeepAll, Store};
use kiln_core::codec::{ByteReader, CodecError, HeavyCodec, write_len};
use kiln_core::key::{Key, KeyHasher};
use kiln_core::registry::Registry;
use kiln_core::value::{Heavy, HeavyData, Value};
use kiln_io::cache::DiskCache;
use kiln_io::{decode_value, encode_value};
use std::any::Any;
use std::sync::Arc;

/// A heavy type kiln-io cannot know: a grid of cell bytes, `width` cells per row.
#[derive(Clone, Debug, PartialEq)]
struct Tiles {
    width: u16,
    cells: Vec<u8>,
}

impl HeavyData for Tiles {
    fn type_name(&self) -> &'static str {
        "test.tiles"
    }
    fn byte_size(&self) -> usize {
        self.cells.len()
    }
    fn hash_content(&self, h: &mut KeyHasher) {
        h.u64(self.width as u64);
        h.bytes(&self.cells);
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl Tiles {
    fn into_value(self) -> Value {
        Value::Heavy(Heavy::new(self))
    }
}

/// u16 width, u64 cell count, the cells.
struct TilesCodec;

const TILES_TAG: u8 = 201;

impl HeavyCodec for TilesCodec {
    fn type_name(&self) -> &'static str {
        "test.tiles"
    }
    fn tag(&self) -> u8 {
        TILES_TAG
    }
    fn encode(&self, value: &Heavy, out: &mut Vec<u8>) -> Result<(), CodecError> {
        let t = value
            .downcast::<Tiles>()
            .ok_or_else(|| CodecError::wrong_type(self, value))?;
        out.extend_from_slice(&t.width.to_le_bytes());
        write_len(out, t.cells.len());
        out.extend_from_slice(&t.cells);
        Ok(())
    }
    fn decode(&self, input: &mut ByteReader<'_>) -> Result<Value, CodecError> {
        let width = input.u16("a tile width")?;
        let n = input.count(1, "cells")?;
        let cells = input.take(n, "cells")?.to_vec();
        Ok(Value::Heavy(Heavy::new(Tiles { width, cells })))
    }
}

fn tiles() -> Tiles {
    Tiles {
        width: 3,
        cells: vec![0, 1, 2, 250, 251, 252],
    }
}

fn with_tiles() -> Registry {
    let mut reg = kiln_image::registry();
    reg.register_codec(TilesCodec).expect("a new type and tag");
    reg
}

fn key(i: u64) -> Key {
    let mut h = KeyHasher::new();
    h.str("heavy-codec-test");
    h.u64(i);
    h.finish_key()
}

#[test]
fn a_type_defined_only_here_round_trips_through_the_disk_cache() {
    let dir = tempfile::tempdir().expect("temp dir");
    let reg = with_tiles();
    let value = tiles().into_value();
    let list = Value::List(Arc::from(vec![Value::Int(4), value.clone()]));

    let writer = Store::new(KeepAll)
        .with_backing(Arc::new(DiskCache::open(dir.path(), &reg).expect("open")));
    writer.insert(key(1), value.clone(), std::time::Duration::ZERO);
    writer.insert(key(2), list.clone(), std::time::Duration::ZERO);

    // Another store on the same directory (another process) reads them back from disk.
    let disk = Arc::new(DiskCache::open(dir.path(), &reg).expect("reopen"));
    let reader = Store::new(KeepAll).with_backing(disk.clone());
    let back = reader.get(key(1)).expect("found on disk");
    assert_eq!(back.as_heavy::<Tiles>(), Some(&tiles()));
    assert_eq!(back.content_hash(), value.content_hash());
    let back = reader.get(key(2)).expect("found on disk");
    let Value::List(items) = &back else {
        panic!("not a list: {back:?}")
    };
    assert_eq!(items[0].as_i64(), Some(4));
    assert_eq!(items[1].as_heavy::<Tiles>(), Some(&tiles()));
    assert_eq!(disk.stats().hits, 2);
    assert_eq!(disk.stats().corrupt, 0);
}

#[test]
fn a_type_defined_only_here_round_trips_through_a_baked_blob() {
    let dir = tempfile::tempdir().expect("temp dir");
    let reg = with_tiles();
    let mut g = kiln_core::graph::Graph::new();
    g.add_node("map", kiln_doc::bake::CONST_OP)
        .expect("new node");
    g.set_param("map", "value", tiles().into_value())
        .expect("const has a value");
    let path = dir.path().join("baked.json");
    let report = kiln_doc::write_baked(&path, &kiln_doc::GraphFile::new(g), &reg).expect("writes");
    assert_eq!(report.blobs_written, 1);
    let back = kiln_doc::read_graph(&path, &reg).expect("reads with the codec");
    let node = back.graph.node("map").expect("the const");
    assert_eq!(node.params["value"].as_heavy::<Tiles>(), Some(&tiles()));
    // Without the codec the blob cannot be read: an error naming it, not a panic.
    let err = kiln_doc::read_graph(&path, &kiln_image::registry()).expect_err("no codec");
    assert!(err.to_string().contains("unknown value tag"), "{err}");
}

#[test]
fn the_bytes_are_the_tag_then_what_the_codec_writes() {
    let reg = with_tiles();
    let bytes = encode_value(&tiles().into_value(), &reg).expect("encodable");
    let mut expected = vec![TILES_TAG, 3, 0, 6, 0, 0, 0, 0, 0, 0, 0];
    expected.extend([0, 1, 2, 250, 251, 252]);
    assert_eq!(bytes, expected);
    let back = decode_value(&bytes, &reg).expect("decodes");
    assert_eq!(back.as_heavy::<Tiles>(), Some(&tiles()));
    // Truncated anywhere: an error, never a panic.
    for cut in 0..bytes.len() {
        assert!(decode_value(&bytes[..cut], &reg).is_err(), "cut at {cut}");
    }
}

#[test]
fn without_the_codec_the_type_is_unsupported_and_other_programs_entries_stay() {
    let dir = tempfile::tempdir().expect("temp dir");
    let plain = kiln_image::registry();
    let value = tiles().into_value();

    // No codec: the value has no binary form, the save is counted and nothing is written.
    assert_eq!(encode_value(&value, &plain), None);
    let without = DiskCache::open(dir.path(), &plain).expect("open");
    without.save(key(1), &value);
    assert_eq!(without.stats().unsupported, 1);
    assert_eq!(without.entry_count(), 0);

    // A program with the codec writes it; the one without reads it as absent, leaves the
    // intact entry in place and says why.
    let with = DiskCache::open(dir.path(), &with_tiles()).expect("open");
    with.save(key(1), &value);
    assert_eq!(with.stats().saves, 1);
    assert_eq!(without.load(key(1)), None);
    let s = without.stats();
    assert_eq!((s.unknown_type, s.corrupt, s.hits), (1, 0, 0));
    assert!(without.entry_path(key(1)).is_file());
    let bytes = std::fs::read(with.entry_path(key(1))).expect("entry");
    let payload = &bytes[kiln_io::cache::HEADER_LEN..];
    let err = decode_value(payload, &plain).expect_err("no codec for the tag");
    assert_eq!(err, format!("unknown value tag {TILES_TAG} at byte 0"));
    // The program with the codec still finds it.
    assert_eq!(
        with.load(key(1))
            .and_then(|v| v.as_heavy::<Tiles>().cloned()),
        Some(tiles())
    );
}

#[test]
fn a_registry_refuses_a_second_codec_for_a_type_or_a_tag() {
    let mut reg = with_tiles();
    assert!(reg.register_codec(TilesCodec).is_err());
    struct Clash;
    impl HeavyCodec for Clash {
        fn type_name(&self) -> &'static str {
            "test.clash"
        }
        fn tag(&self) -> u8 {
            32 // the image codec's
        }
        fn encode(&self, value: &Heavy, _out: &mut Vec<u8>) -> Result<(), CodecError> {
            Err(CodecError::wrong_type(self, value))
        }
        fn decode(&self, input: &mut ByteReader<'_>) -> Result<Value, CodecError> {
            Err(CodecError::invalid(input.position(), "never"))
        }
    }
    let err = reg.register_codec(Clash).expect_err("tag 32 is taken");
    assert!(err.to_string().contains("`image`"), "{err}");
}

/// The standard heavy types are written as they were before codecs: tag, then fields, every
/// number little-endian (bytes worked out by hand from the format).
#[test]
fn standard_heavy_types_keep_their_bytes() {
    let reg = domains::every_domain();
    let image = kiln_image::image::Image {
        width: 1,
        height: 2,
        pixels: vec![[1.0, 0.0, -0.0, 0.5]],
    };
    let mut expected = vec![32, 1, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0];
    expected.extend([0, 0, 0x80, 0x3f, 0, 0, 0, 0, 0, 0, 0, 0x80, 0, 0, 0, 0x3f]);
    assert_eq!(encode_value(&image.into_value(), &reg), Some(expected));

    let audio = kiln_audio::AudioBuffer {
        sample_rate: 48_000,
        channels: 2,
        samples: vec![0.5],
    };
    let expected = vec![
        33, 0x80, 0xbb, 0, 0, 2, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x3f,
    ];
    assert_eq!(encode_value(&audio.into_value(), &reg), Some(expected));

    let mut mesh = kiln_mesh::Mesh::new();
    mesh.add_point(glam::Vec3::X);
    mesh.add_polyline(&[0, 0]);
    let mut expected = vec![34, 1, 0, 0, 0, 0, 0, 0, 0];
    expected.extend([0, 0, 0x80, 0x3f, 0, 0, 0, 0, 0, 0, 0, 0]);
    expected.extend([2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    expected.extend([1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 1]);
    // No attributes in any of the four classes, no point or primitive groups, no packed
    // sets: seven zero counts.
    expected.extend([0; 8 * 7]);
    assert_eq!(encode_value(&mesh.into_value(), &reg), Some(expected));
}
