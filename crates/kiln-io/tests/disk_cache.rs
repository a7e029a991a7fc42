//! The persistent result cache: the value codec (bit-exact round trips, hostile input), entry
//! files (damage detected, removed and repaired), concurrent writers, and the store on top.

mod domains;

use kiln_audio::AudioBuffer;
use kiln_core::cache::{Backing, KeepAll, Store};
use kiln_core::key::{Key, KeyHasher};
use kiln_core::value::{Heavy, HeavyData, Value};
use kiln_image::image::Image;
use kiln_io::cache::{
    CacheError, DiskCache, DiskStats, HEADER_LEN, MAGIC, decode_value, encode_value,
};
use kiln_mesh::{AttribValues, Mesh};
use proptest::prelude::*;
use proptest::test_runner::Config;
use std::any::Any;
use std::path::Path;
use std::sync::{Arc, Barrier, LazyLock};
use std::time::Duration;

/// The codecs of every heavy type here.
static REG: LazyLock<kiln_core::registry::Registry> = LazyLock::new(domains::every_domain);

// ---------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------

/// Bit-for-bit equality of values: floats by their bits (NaN payloads included), heavy
/// values field by field, lists item by item.
fn bits_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::List(x), Value::List(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| bits_eq(p, q))
        }
        (Value::Heavy(x), Value::Heavy(y)) => heavy_bits_eq(x, y),
        (Value::Error(_), _) | (_, Value::Error(_)) => false,
        _ => a.same_bits(b),
    }
}

fn f32_bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// Heavy values field by field, floats by their bits (content hashes canonicalise NaN, so
/// they alone cannot tell NaN payloads apart).
fn heavy_bits_eq(a: &Heavy, b: &Heavy) -> bool {
    if a.type_name() != b.type_name() || a.content_hash() != b.content_hash() {
        return false;
    }
    if let (Some(x), Some(y)) = (a.downcast::<Image>(), b.downcast::<Image>()) {
        return x.width == y.width
            && x.height == y.height
            && f32_bits(x.pixels.as_flattened()) == f32_bits(y.pixels.as_flattened());
    }
    if let (Some(x), Some(y)) = (a.downcast::<AudioBuffer>(), b.downcast::<AudioBuffer>()) {
        return x.sample_rate == y.sample_rate
            && x.channels == y.channels
            && f32_bits(&x.samples) == f32_bits(&y.samples);
    }
    if let (Some(x), Some(y)) = (a.downcast::<Mesh>(), b.downcast::<Mesh>()) {
        return point_bits(x) == point_bits(y)
            && normal_bits(x) == normal_bits(y)
            && x.vertices == y.vertices
            && x.prims == y.prims;
    }
    false
}

fn point_bits(m: &Mesh) -> Vec<u32> {
    m.points
        .iter()
        .flat_map(|p| p.to_array())
        .map(f32::to_bits)
        .collect()
}

fn normal_bits(m: &Mesh) -> Vec<u32> {
    m.point_attrs
        .vec3("N")
        .unwrap_or(&[])
        .iter()
        .flat_map(|p| p.to_array())
        .map(f32::to_bits)
        .collect()
}

fn list(items: Vec<Value>) -> Value {
    Value::List(Arc::from(items))
}

fn round_trip(v: &Value) -> Value {
    let bytes = encode_value(v, &REG).unwrap_or_else(|| panic!("{v:?} should be encodable"));
    let back = decode_value(&bytes, &REG).unwrap_or_else(|e| panic!("{v:?} should decode: {e}"));
    assert_eq!(
        encode_value(&back, &REG).as_deref(),
        Some(bytes.as_slice()),
        "re-encoding {v:?} gives other bytes"
    );
    back
}

const NAN_PAYLOAD_64: u64 = 0x7ff4_0000_dead_beef;
const NEG_NAN_64: u64 = 0xfff8_0000_0000_0001;
const NAN_PAYLOAD_32: u32 = 0x7fa0_1234;
const NEG_NAN_32: u32 = 0xffc0_0001;

fn odd_f64s() -> Vec<f64> {
    vec![
        -0.0,
        0.0,
        f64::from_bits(NAN_PAYLOAD_64),
        f64::from_bits(NEG_NAN_64),
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::MIN_POSITIVE / 4.0, // subnormal
        f64::MAX,
        1.5,
    ]
}

fn odd_f32s() -> Vec<f32> {
    vec![
        -0.0,
        f32::from_bits(NAN_PAYLOAD_32),
        f32::from_bits(NEG_NAN_32),
        f32::INFINITY,
        f32::MIN_POSITIVE / 2.0,
        0.25,
    ]
}

fn image() -> Image {
    let f = odd_f32s();
    Image {
        width: 3,
        height: 2,
        pixels: (0..6)
            .map(|i| {
                [
                    f[i % f.len()],
                    f[(i + 1) % f.len()],
                    i as f32,
                    f[(i + 3) % f.len()],
                ]
            })
            .collect(),
    }
}

fn audio() -> AudioBuffer {
    let mut samples = odd_f32s();
    samples.extend((0..10).map(|i| i as f32 / 10.0));
    AudioBuffer {
        sample_rate: 44_100,
        channels: 2,
        samples,
    }
}

fn mesh() -> Mesh {
    let mut m = Mesh::new();
    for p in [
        [0.0, 0.0, 0.0],
        [1.0, -0.0, f32::from_bits(NAN_PAYLOAD_32)],
        [0.0, 1.0, 0.5],
    ] {
        m.add_point(p.into());
    }
    m.add_polygon(&[0, 1, 2]);
    m.add_polygon(&[2, 1, 0]);
    m.point_attrs
        .insert("N", AttribValues::Vec3(vec![glam::Vec3::Z; 3]));
    m
}

/// Every plain variant, with the awkward floats.
fn plain_values() -> Vec<Value> {
    let mut v: Vec<Value> = odd_f64s().into_iter().map(Value::Float).collect();
    v.extend([
        Value::Int(0),
        Value::Int(i64::MIN),
        Value::Int(i64::MAX),
        Value::Int(-1),
        Value::Bool(true),
        Value::Bool(false),
        Value::Vec2([-0.0, f64::from_bits(NAN_PAYLOAD_64)]),
        Value::Vec3([1.0, f64::from_bits(NEG_NAN_64), f64::NEG_INFINITY]),
        Value::Vec4([0.1, 0.2, -0.0, f64::MIN_POSITIVE / 8.0]),
        Value::Color([
            f32::from_bits(NAN_PAYLOAD_32),
            -0.0,
            f32::from_bits(NEG_NAN_32),
            1.0,
        ]),
        Value::str(""),
        Value::str("héllo, wörld ✓ \0 \n"),
        list(vec![]),
        list(vec![Value::Int(1), Value::str("a"), Value::Float(-0.0)]),
    ]);
    v
}

/// A value holding every encodable variant, heavy ones included, two lists deep.
fn everything() -> Value {
    let mut items = plain_values();
    items.push(image().into_value());
    items.push(audio().into_value());
    items.push(mesh().into_value());
    items.push(list(plain_values()));
    list(items)
}

#[derive(Debug)]
struct Blob(Vec<u8>);
impl HeavyData for Blob {
    fn type_name(&self) -> &'static str {
        "blob"
    }
    fn byte_size(&self) -> usize {
        self.0.len()
    }
    fn hash_content(&self, h: &mut KeyHasher) {
        h.bytes(&self.0)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

fn key(i: u64) -> Key {
    let mut h = KeyHasher::new();
    h.str("disk-cache-test");
    h.u64(i);
    h.finish_key()
}

fn temp_files(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("read dir").flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_none_or(|x| x != "kv") {
                out.push(p.display().to_string());
            }
        }
    }
    out
}

fn loads_same(cache: &DiskCache, k: Key, v: &Value) -> bool {
    cache.load(k).is_some_and(|back| bits_eq(&back, v))
}

// ---------------------------------------------------------------------------------------
// Codec
// ---------------------------------------------------------------------------------------

#[test]
fn codec_round_trips_every_plain_variant_bit_exact() {
    for v in plain_values() {
        let back = round_trip(&v);
        assert!(bits_eq(&back, &v), "{v:?} came back as {back:?}");
    }
    // The awkward floats really are what they claim to be.
    let Value::Float(nan) = round_trip(&Value::Float(f64::from_bits(NAN_PAYLOAD_64))) else {
        panic!("not a float")
    };
    assert_eq!(nan.to_bits(), NAN_PAYLOAD_64);
    let Value::Float(z) = round_trip(&Value::Float(-0.0)) else {
        panic!("not a float")
    };
    assert!(z == 0.0 && z.is_sign_negative());
}

#[test]
fn codec_round_trips_nested_lists() {
    let nested = list(vec![
        list(vec![list(vec![]), list(vec![Value::Int(3)])]),
        list(vec![list(vec![list(vec![Value::str("deep")])])]),
        Value::Bool(true),
    ]);
    assert!(bits_eq(&round_trip(&nested), &nested));
    let all = everything();
    assert!(bits_eq(&round_trip(&all), &all));
}

#[test]
fn codec_round_trips_each_heavy_type() {
    let img = image();
    let back = round_trip(&img.clone().into_value());
    let got = back.as_heavy::<Image>().expect("an image");
    assert_eq!((got.width, got.height), (3, 2));
    assert_eq!(
        f32_bits(got.pixels.as_flattened()),
        f32_bits(img.pixels.as_flattened())
    );
    assert_eq!(back.content_hash(), img.clone().into_value().content_hash());

    let a = audio();
    let back = round_trip(&a.clone().into_value());
    let got = back.as_heavy::<AudioBuffer>().expect("an audio buffer");
    assert_eq!((got.sample_rate, got.channels), (44_100, 2));
    assert_eq!(f32_bits(&got.samples), f32_bits(&a.samples));
    assert_eq!(back.content_hash(), a.clone().into_value().content_hash());

    let m = mesh();
    let back = round_trip(&m.clone().into_value());
    let got = back.as_heavy::<Mesh>().expect("a mesh");
    assert_eq!(point_bits(got), point_bits(&m));
    assert_eq!(normal_bits(got), normal_bits(&m));
    assert_eq!((&got.vertices, &got.prims), (&m.vertices, &m.prims));
    assert_eq!(back.content_hash(), m.clone().into_value().content_hash());

    // Empty and unusual shapes are kept as they are.
    for v in [
        Image {
            width: 0,
            height: 0,
            pixels: vec![],
        }
        .into_value(),
        Image {
            width: 4,
            height: 4,
            pixels: vec![[1.0; 4]],
        }
        .into_value(),
        AudioBuffer {
            sample_rate: 0,
            channels: 0,
            samples: vec![],
        }
        .into_value(),
        Mesh::default().into_value(),
    ] {
        assert!(bits_eq(&round_trip(&v), &v), "{v:?}");
    }
}

#[test]
fn codec_refuses_values_without_a_binary_form() {
    let blob = Value::Heavy(Heavy::new(Blob(vec![1, 2, 3])));
    let error = Value::Error(Arc::new(kiln_core::eval::EvalError::Cancelled));
    for v in [
        Value::Empty,
        error.clone(),
        blob.clone(),
        list(vec![Value::Int(1), blob]),
        list(vec![list(vec![error])]),
        list(vec![Value::Empty]),
    ] {
        assert_eq!(encode_value(&v, &REG), None, "{v:?}");
    }
}

#[test]
fn codec_bounds_list_nesting_at_64() {
    let mut v = Value::Int(7);
    for _ in 0..64 {
        v = list(vec![v]);
    }
    assert!(bits_eq(&round_trip(&v), &v));
    assert_eq!(encode_value(&list(vec![v]), &REG), None);
}

#[test]
fn codec_every_truncation_of_a_valid_payload_is_an_error() {
    let bytes = encode_value(&everything(), &REG).expect("encodable");
    for cut in 0..bytes.len() {
        assert!(
            decode_value(&bytes[..cut], &REG).is_err(),
            "a payload cut to {cut} of {} bytes decoded",
            bytes.len()
        );
    }
    assert!(decode_value(&bytes, &REG).is_ok());
}

#[test]
fn codec_flipped_bytes_never_panic() {
    let bytes = encode_value(&everything(), &REG).expect("encodable");
    for i in 0..bytes.len() {
        for flip in [0x01u8, 0x80, 0xff] {
            let mut b = bytes.clone();
            b[i] ^= flip;
            if let Ok(v) = decode_value(&b, &REG) {
                // Whatever decodes is a real value that encodes back to the same bytes.
                assert_eq!(encode_value(&v, &REG).as_deref(), Some(b.as_slice()));
            }
        }
    }
}

fn plain_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        any::<u64>().prop_map(|b| Value::Float(f64::from_bits(b))),
        any::<i64>().prop_map(Value::Int),
        any::<bool>().prop_map(Value::Bool),
        any::<[u64; 2]>().prop_map(|b| Value::Vec2(b.map(f64::from_bits))),
        any::<[u64; 3]>().prop_map(|b| Value::Vec3(b.map(f64::from_bits))),
        any::<[u64; 4]>().prop_map(|b| Value::Vec4(b.map(f64::from_bits))),
        any::<[u32; 4]>().prop_map(|b| Value::Color(b.map(f32::from_bits))),
        ".{0,12}".prop_map(|s: String| Value::str(&s)),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        proptest::collection::vec(inner, 0..6).prop_map(list)
    })
}

proptest! {
    #![proptest_config(Config { cases: 256, ..Config::default() })]

    #[test]
    fn codec_round_trips_plain_values(v in plain_value()) {
        let bytes = encode_value(&v, &REG).expect("plain values are encodable");
        let back = decode_value(&bytes, &REG).expect("decodes");
        prop_assert!(bits_eq(&back, &v), "{:?} came back as {:?}", v, back);
        prop_assert!(back.same_bits(&v));
    }

    #[test]
    fn codec_random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        if let Ok(v) = decode_value(&bytes, &REG) {
            prop_assert_eq!(encode_value(&v, &REG), Some(bytes));
        }
    }

    #[test]
    fn codec_random_bytes_after_a_tag_never_panic(
        tag in prop_oneof![1u8..=9, 32u8..=34],
        rest in proptest::collection::vec(any::<u8>(), 0..128),
    ) {
        let mut bytes = vec![tag];
        bytes.extend(rest);
        if let Ok(v) = decode_value(&bytes, &REG) {
            prop_assert_eq!(encode_value(&v, &REG), Some(bytes));
        }
    }
}

// ---------------------------------------------------------------------------------------
// Entry files
// ---------------------------------------------------------------------------------------

#[test]
fn open_creates_the_directory_and_writes_only_inside_it() {
    let root = tempfile::tempdir().expect("temp dir");
    let dir = root.path().join("a").join("cache");
    let cache = DiskCache::open(&dir, &REG).expect("open");
    assert!(dir.join("v1").is_dir());
    assert_eq!(cache.dir(), dir.as_path());
    assert_eq!(cache.describe(), dir.display().to_string());
    cache.save(key(1), &Value::Int(1));
    cache.save(key(2), &image().into_value());
    let top: Vec<_> = std::fs::read_dir(root.path())
        .expect("read")
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(top, vec![std::ffi::OsString::from("a")]);
    assert_eq!(cache.entry_count(), 2);
    assert!(cache.entry_path(key(1)).starts_with(dir.join("v1")));
}

#[test]
fn open_fails_on_a_file() {
    let root = tempfile::tempdir().expect("temp dir");
    let file = root.path().join("not-a-dir");
    std::fs::write(&file, b"x").expect("write");
    let err = DiskCache::open(&file, &REG).expect_err("a file is not a cache directory");
    assert!(matches!(err, CacheError::Io { .. }));
    assert!(err.to_string().contains("not-a-dir"), "{err}");
}

#[test]
fn save_then_load_in_a_fresh_cache_gives_the_same_bits() {
    let dir = tempfile::tempdir().expect("temp dir");
    let values: Vec<Value> = plain_values()
        .into_iter()
        .chain([
            image().into_value(),
            audio().into_value(),
            mesh().into_value(),
            everything(),
        ])
        .collect();
    {
        let cache = DiskCache::open(dir.path(), &REG).expect("open");
        for (i, v) in values.iter().enumerate() {
            cache.save(key(i as u64), v);
        }
        assert_eq!(cache.stats().saves, values.len() as u64);
        assert_eq!(cache.stats().errors, 0);
    }
    let cache = DiskCache::open(dir.path(), &REG).expect("reopen");
    assert_eq!(cache.entry_count(), values.len());
    for (i, v) in values.iter().enumerate() {
        assert!(loads_same(&cache, key(i as u64), v), "entry {i}: {v:?}");
    }
    assert_eq!(cache.load(key(999)), None);
    let s = cache.stats();
    assert_eq!(
        (s.loads, s.hits, s.corrupt, s.errors),
        (values.len() as u64 + 1, values.len() as u64, 0, 0)
    );
}

#[test]
fn the_entry_file_has_the_documented_layout() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cache = DiskCache::open(dir.path(), &REG).expect("open");
    let k = key(3);
    let v = Value::Vec2([1.0, -0.0]);
    cache.save(k, &v);
    let hex = k.to_hex();
    let path = dir
        .path()
        .join("v1")
        .join(&hex[..2])
        .join(format!("{}.kv", &hex[2..]));
    assert_eq!(cache.entry_path(k), path);
    let bytes = std::fs::read(&path).expect("entry written");
    let payload = encode_value(&v, &REG).expect("encodable");
    assert_eq!(&bytes[..8], &MAGIC);
    assert_eq!(&bytes[8..16], &(payload.len() as u64).to_le_bytes());
    let mut h = KeyHasher::new();
    h.bytes(&payload);
    assert_eq!(&bytes[16..32], &h.finish_key().0.to_le_bytes());
    assert_eq!(&bytes[32..48], &k.0.to_le_bytes());
    assert_eq!(&bytes[HEADER_LEN..], payload.as_slice());
}

/// Damage the entry of `k` with `damage`; a load must miss, count it, remove the file, and a
/// new save must repair it.
fn damaged_entry_is_detected_removed_and_repaired(
    what: &str,
    damage: impl FnOnce(&DiskCache, &Path),
) {
    let dir = tempfile::tempdir().expect("temp dir");
    let writer = DiskCache::open(dir.path(), &REG).expect("open");
    let k = key(10);
    let v = everything();
    writer.save(k, &v);
    let path = writer.entry_path(k);
    damage(&writer, &path);

    let cache = DiskCache::open(dir.path(), &REG).expect("reopen");
    assert_eq!(cache.load(k), None, "{what}: a damaged entry loaded");
    let s = cache.stats();
    assert_eq!((s.loads, s.hits, s.corrupt), (1, 0, 1), "{what}: {s:?}");
    assert!(!path.exists(), "{what}: the damaged file was not removed");

    cache.save(k, &v);
    assert_eq!(cache.stats().saves, 1, "{what}");
    assert!(loads_same(&cache, k, &v), "{what}: not repaired");
    assert!(loads_same(
        &DiskCache::open(dir.path(), &REG).expect("open"),
        k,
        &v
    ));
}

#[test]
fn a_corrupted_payload_byte_is_detected() {
    damaged_entry_is_detected_removed_and_repaired("payload byte", |_, p| {
        let mut b = std::fs::read(p).expect("read");
        let mid = HEADER_LEN + (b.len() - HEADER_LEN) / 2;
        b[mid] ^= 0x10;
        std::fs::write(p, b).expect("write");
    });
}

#[test]
fn a_corrupted_checksum_is_detected() {
    damaged_entry_is_detected_removed_and_repaired("checksum byte", |_, p| {
        let mut b = std::fs::read(p).expect("read");
        b[20] ^= 0x01;
        std::fs::write(p, b).expect("write");
    });
}

#[test]
fn a_truncated_file_is_detected() {
    damaged_entry_is_detected_removed_and_repaired("truncated", |_, p| {
        let b = std::fs::read(p).expect("read");
        std::fs::write(p, &b[..b.len() - 1]).expect("write");
    });
    damaged_entry_is_detected_removed_and_repaired("header only", |_, p| {
        let b = std::fs::read(p).expect("read");
        std::fs::write(p, &b[..HEADER_LEN - 5]).expect("write");
    });
}

#[test]
fn a_zero_length_file_is_detected() {
    damaged_entry_is_detected_removed_and_repaired("zero length", |_, p| {
        std::fs::write(p, b"").expect("write");
    });
}

#[test]
fn a_wrong_magic_is_detected() {
    damaged_entry_is_detected_removed_and_repaired("wrong magic", |_, p| {
        let mut b = std::fs::read(p).expect("read");
        b[..8].copy_from_slice(b"KILNCV02");
        std::fs::write(p, b).expect("write");
    });
}

#[test]
fn an_entry_copied_to_another_keys_path_is_detected() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cache = DiskCache::open(dir.path(), &REG).expect("open");
    let (a, b) = (key(1), key(2));
    cache.save(a, &Value::Int(1));
    let to = cache.entry_path(b);
    std::fs::create_dir_all(to.parent().expect("shard")).expect("mkdir");
    std::fs::copy(cache.entry_path(a), &to).expect("copy");

    assert_eq!(cache.load(b), None);
    assert_eq!(cache.stats().corrupt, 1);
    assert!(!to.exists());
    // The original is untouched.
    assert!(loads_same(&cache, a, &Value::Int(1)));
    cache.save(b, &Value::Int(2));
    assert!(loads_same(&cache, b, &Value::Int(2)));
}

#[test]
fn save_skips_an_intact_entry_and_replaces_a_damaged_one() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cache = DiskCache::open(dir.path(), &REG).expect("open");
    let k = key(4);
    cache.save(k, &Value::Float(2.5));
    cache.save(k, &Value::Float(2.5));
    let s = cache.stats();
    assert_eq!((s.saves, s.skipped), (1, 1));

    let p = cache.entry_path(k);
    std::fs::write(&p, b"garbage").expect("write");
    cache.save(k, &Value::Float(2.5));
    let s = cache.stats();
    assert_eq!((s.saves, s.skipped, s.corrupt), (2, 1, 1));
    assert!(loads_same(&cache, k, &Value::Float(2.5)));
}

#[test]
fn unsupported_values_are_counted_and_not_written() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cache = DiskCache::open(dir.path(), &REG).expect("open");
    cache.save(key(1), &Value::Empty);
    cache.save(key(2), &Value::Heavy(Heavy::new(Blob(vec![9]))));
    cache.save(
        key(3),
        &Value::Error(Arc::new(kiln_core::eval::EvalError::Cancelled)),
    );
    assert_eq!(
        cache.stats(),
        DiskStats {
            unsupported: 3,
            ..DiskStats::default()
        }
    );
    assert_eq!(cache.entry_count(), 0);
    assert_eq!(cache.load(key(2)), None);
    assert_eq!(cache.stats().corrupt, 0);
}

#[test]
fn stray_files_are_not_entries() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cache = DiskCache::open(dir.path(), &REG).expect("open");
    cache.save(key(1), &Value::Int(1));
    let shard = cache.entry_path(key(1));
    let shard = shard.parent().expect("shard");
    std::fs::write(shard.join(".kiln-leftover.tmp"), b"x").expect("write");
    std::fs::write(shard.join("notes.txt"), b"x").expect("write");
    std::fs::create_dir_all(dir.path().join("v1").join("zz")).expect("mkdir");
    assert_eq!(cache.entry_count(), 1);
}

#[test]
fn eight_writers_on_one_directory_leave_every_entry_intact() {
    let dir = tempfile::tempdir().expect("temp dir");
    let values: Arc<Vec<Value>> = Arc::new(
        (0..50u64)
            .map(|i| match i % 5 {
                0 => Value::Int(i as i64),
                1 => list(vec![Value::Float(i as f64), Value::str("x")]),
                2 => Image::filled(8, 8, [i as f32, 0.0, -0.0, 1.0]).into_value(),
                3 => AudioBuffer {
                    sample_rate: 48_000,
                    channels: 1,
                    samples: vec![i as f32; 4096],
                }
                .into_value(),
                _ => mesh().into_value(),
            })
            .collect(),
    );
    let barrier = Arc::new(Barrier::new(8));
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let (dir, values, barrier) =
                (dir.path().to_path_buf(), values.clone(), barrier.clone());
            std::thread::spawn(move || {
                let cache = DiskCache::open(&dir, &REG).expect("open");
                barrier.wait();
                // Half the threads go backwards, so writers meet on the same entries.
                let order: Vec<usize> = if t % 2 == 0 {
                    (0..values.len()).collect()
                } else {
                    (0..values.len()).rev().collect()
                };
                for i in order {
                    cache.save(key(i as u64), &values[i]);
                }
                cache.stats()
            })
        })
        .collect();
    let stats: Vec<DiskStats> = threads
        .into_iter()
        .map(|t| t.join().expect("writer thread"))
        .collect();
    for s in &stats {
        assert_eq!(s.errors, 0, "{s:?}");
        assert_eq!(s.saves + s.skipped, 50, "{s:?}");
    }
    assert!(stats.iter().map(|s| s.saves).sum::<u64>() >= 50);

    let cache = DiskCache::open(dir.path(), &REG).expect("open");
    assert_eq!(cache.entry_count(), 50);
    for (i, v) in values.iter().enumerate() {
        assert!(loads_same(&cache, key(i as u64), v), "entry {i}");
    }
    assert_eq!(cache.stats().corrupt, 0);
    assert_eq!(temp_files(dir.path()), Vec::<String>::new());
}

// ---------------------------------------------------------------------------------------
// Under a store
// ---------------------------------------------------------------------------------------

#[test]
fn a_store_finds_what_another_store_saved() {
    let dir = tempfile::tempdir().expect("temp dir");
    let values = [
        Value::Float(-0.0),
        Value::str("kept"),
        image().into_value(),
        mesh().into_value(),
    ];
    {
        let disk = Arc::new(DiskCache::open(dir.path(), &REG).expect("open"));
        let store = Store::new(KeepAll).with_backing(disk.clone());
        for (i, v) in values.iter().enumerate() {
            store.insert(key(i as u64), v.clone(), Duration::from_millis(3));
        }
        // Not encodable: kept in memory, not on disk.
        store.insert(key(99), Value::Empty, Duration::ZERO);
        assert_eq!(disk.stats().saves, values.len() as u64);
        assert_eq!(disk.stats().unsupported, 1);
    }

    let disk = Arc::new(DiskCache::open(dir.path(), &REG).expect("reopen"));
    let store = Store::new(KeepAll).with_backing(disk.clone());
    for (i, v) in values.iter().enumerate() {
        let got = store.get(key(i as u64)).expect("found on disk");
        assert!(bits_eq(&got, v), "{v:?}");
    }
    assert_eq!(store.get(key(99)), None);
    let s = store.stats();
    assert_eq!((s.backing_hits, s.misses), (values.len() as u64, 1));
    // Now held in memory: a second read does not touch the disk.
    assert!(store.get(key(0)).is_some());
    assert_eq!(store.stats().hits, 1);
    assert_eq!(disk.stats().loads, values.len() as u64 + 1);
}

#[test]
fn a_store_recomputes_past_a_damaged_entry_and_rewrites_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let k = key(5);
    let v = audio().into_value();
    {
        let store = Store::new(KeepAll)
            .with_backing(Arc::new(DiskCache::open(dir.path(), &REG).expect("open")));
        store.insert(k, v.clone(), Duration::ZERO);
    }
    let disk = Arc::new(DiskCache::open(dir.path(), &REG).expect("reopen"));
    let path = disk.entry_path(k);
    let mut b = std::fs::read(&path).expect("read");
    let last = b.len() - 1;
    b[last] ^= 0xff;
    std::fs::write(&path, b).expect("write");

    let store = Store::new(KeepAll).with_backing(disk.clone());
    assert_eq!(store.get(k), None);
    assert_eq!(store.stats().misses, 1);
    assert_eq!(disk.stats().corrupt, 1);
    // The caller recomputes and inserts: the entry is rewritten.
    store.insert(k, v.clone(), Duration::ZERO);
    let fresh = DiskCache::open(dir.path(), &REG).expect("open");
    assert!(loads_same(&fresh, k, &v));
}
