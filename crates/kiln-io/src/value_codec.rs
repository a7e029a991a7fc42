//! The binary value codec of cache entries and baked blobs.
//!
//! A value is a tag byte, then its content; every number is little-endian and floats are
//! written by their bits, so values read back bit for bit (NaN payloads and `-0.0` included).
//!
//! | tag | value | content |
//! | ---: | --- | --- |
//! | 1 | float | f64 bits |
//! | 2 | int | i64 |
//! | 3 | bool | one byte, 0 or 1 |
//! | 4, 5, 6 | vec2, vec3, vec4 | 2, 3, 4 × f64 bits |
//! | 7 | color | 4 × f32 bits |
//! | 8 | string | u64 byte length, UTF-8 bytes |
//! | 9 | list | u64 item count, the items (at most [`MAX_DEPTH`] lists and records deep) |
//! | 10 | record | u64 field count, then per field (sorted by name): u64 name length, UTF-8 name, the value |
//! | 32 and up | heavy | the content its type's codec writes |
//!
//! A heavy value is written by the [`HeavyCodec`](kiln_core::codec::HeavyCodec) its type
//! registered in the registry given (found by the value's type name; on reading, by its tag),
//! so this module knows no heavy type. The standard ones are `kiln-std`'s image
//! ([`ImageCodec`](kiln_image::image::ImageCodec), tag 32: u32 width, u32 height, u64 pixel
//! count, pixels as 4 × f32 bits), `kiln-audio`'s audio buffer (tag 33: u32 sample rate, u16
//! channels, u64 sample count, f32 bits each) and `kiln-mesh`'s mesh (tag 34: points,
//! vertices, primitives, attributes and groups, see [`MeshCodec`](kiln_mesh::MeshCodec)).
//!
//! Counts are stored as they are (an image whose pixel count differs from width × height
//! reads back the same), so what was saved is what loads. Empty values, errors of failed
//! nodes and heavy values of a type without a registered codec, directly or inside a list,
//! have no binary form; a tag no codec claims does not decode. The payload must be consumed
//! exactly: trailing bytes are an error.
//!
//! ```
//! use kiln_core::value::Value;
//! use kiln_io::{decode_value, encode_value};
//! use kiln_image::image::Image;
//!
//! let registry = kiln_image::registry();
//! let image = Image::filled(2, 1, [0.5, -0.0, 1.0, 1.0]).into_value();
//! let bytes = encode_value(&image, &registry).unwrap();
//! assert_eq!(bytes[0], 32); // the image codec's tag
//! assert_eq!(bytes.len(), 1 + 4 + 4 + 8 + 2 * 16);
//! let back = decode_value(&bytes, &registry).unwrap();
//! assert_eq!(back.content_hash(), image.content_hash());
//! // Without the image codec, an image has no binary form.
//! assert_eq!(encode_value(&image, &kiln_core::registry::Registry::new()), None);
//! ```

use kiln_core::codec::{ByteReader, CodecError, Codecs, FIRST_HEAVY_TAG, write_f32s, write_len};
use kiln_core::registry::Registry;
use kiln_core::value::{Heavy, Value};
use std::sync::Arc;

/// The deepest nesting of lists the codec writes or reads (a list of lists is depth 2).
pub const MAX_DEPTH: usize = 64;

const T_FLOAT: u8 = 1;
const T_INT: u8 = 2;
const T_BOOL: u8 = 3;
const T_VEC2: u8 = 4;
const T_VEC3: u8 = 5;
const T_VEC4: u8 = 6;
const T_COLOR: u8 = 7;
const T_STR: u8 = 8;
const T_LIST: u8 = 9;
const T_RECORD: u8 = 10;

/// The binary form of `value` (see the module docs), or `None` for a value that has none:
/// an empty value, the error of a failed node, a heavy value whose type has no codec in
/// `registry`, or lists nested deeper than [`MAX_DEPTH`] (directly or inside a list).
pub fn encode_value(value: &Value, registry: &Registry) -> Option<Vec<u8>> {
    encode_with(value, registry.codecs())
}

/// Read a value written by [`encode_value`] with the codecs of `registry`. Any other input
/// (truncated, corrupted, with trailing bytes, lists nested deeper than [`MAX_DEPTH`], or a
/// tag no codec claims) is an error saying what is wrong; nothing is allocated beyond what the
/// input's length can fill.
pub fn decode_value(bytes: &[u8], registry: &Registry) -> Result<Value, String> {
    decode_with(bytes, registry.codecs()).map_err(|e| e.to_string())
}

/// [`encode_value`] with a table of codecs.
pub(crate) fn encode_with(value: &Value, codecs: &Codecs) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    encode_into(value, 0, codecs, &mut out)?;
    Some(out)
}

/// Why a payload did not decode.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum DecodeError {
    /// A tag that neither a plain value nor a codec of the table claims.
    #[error("unknown value tag {tag} at byte {at}")]
    UnknownTag {
        /// The tag.
        tag: u8,
        /// Where it is.
        at: usize,
    },
    /// The bytes are not a value.
    #[error(transparent)]
    Codec(#[from] CodecError),
}

impl DecodeError {
    /// Whether the payload may be a sound value of a heavy type whose codec is not in the
    /// table (a tag in the heavy range that no codec here claims).
    pub(crate) fn is_unknown_heavy_type(&self) -> bool {
        matches!(self, DecodeError::UnknownTag { tag, .. } if *tag >= FIRST_HEAVY_TAG)
    }
}

/// [`decode_value`] with a table of codecs.
pub(crate) fn decode_with(bytes: &[u8], codecs: &Codecs) -> Result<Value, DecodeError> {
    let mut r = ByteReader::new(bytes);
    let v = read_value(&mut r, 0, codecs)?;
    if r.remaining() != 0 {
        return Err(CodecError::invalid(
            r.position(),
            format!("{} trailing bytes after the value", r.remaining()),
        )
        .into());
    }
    Ok(v)
}

fn put_f64s(out: &mut Vec<u8>, v: &[f64]) {
    for x in v {
        out.extend_from_slice(&x.to_bits().to_le_bytes());
    }
}

/// `depth` is the number of lists around `value`.
fn encode_into(value: &Value, depth: usize, codecs: &Codecs, out: &mut Vec<u8>) -> Option<()> {
    match value {
        Value::Empty | Value::Error(_) => return None,
        Value::Float(v) => {
            out.push(T_FLOAT);
            put_f64s(out, &[*v]);
        }
        Value::Int(v) => {
            out.push(T_INT);
            out.extend_from_slice(&v.to_le_bytes());
        }
        Value::Bool(v) => {
            out.push(T_BOOL);
            out.push(u8::from(*v));
        }
        Value::Vec2(v) => {
            out.push(T_VEC2);
            put_f64s(out, v);
        }
        Value::Vec3(v) => {
            out.push(T_VEC3);
            put_f64s(out, v);
        }
        Value::Vec4(v) => {
            out.push(T_VEC4);
            put_f64s(out, v);
        }
        Value::Color(v) => {
            out.push(T_COLOR);
            write_f32s(out, v);
        }
        Value::Str(s) => {
            out.push(T_STR);
            write_len(out, s.len());
            out.extend_from_slice(s.as_bytes());
        }
        Value::List(items) => {
            if depth >= MAX_DEPTH {
                return None;
            }
            out.push(T_LIST);
            write_len(out, items.len());
            for item in items.iter() {
                encode_into(item, depth + 1, codecs, out)?;
            }
        }
        Value::Record(r) => {
            if depth >= MAX_DEPTH {
                return None;
            }
            out.push(T_RECORD);
            write_len(out, r.len());
            for (k, v) in r.fields() {
                write_len(out, k.len());
                out.extend_from_slice(k.as_bytes());
                encode_into(v, depth + 1, codecs, out)?;
            }
        }
        Value::Heavy(h) => encode_heavy(h, codecs, out)?,
    }
    Some(())
}

/// The tag and content of a heavy value, by the codec of its type.
fn encode_heavy(h: &Heavy, codecs: &Codecs, out: &mut Vec<u8>) -> Option<()> {
    let codec = codecs.for_type(h.type_name())?;
    out.push(codec.tag());
    codec.encode(h, out).ok()
}

/// One value at the reader's position; `depth` is the number of lists around it.
fn read_value(r: &mut ByteReader<'_>, depth: usize, codecs: &Codecs) -> Result<Value, DecodeError> {
    let at = r.position();
    let tag = r.u8("a value's tag")?;
    Ok(match tag {
        T_FLOAT => Value::Float(r.f64("a float")?),
        T_INT => Value::Int(i64::from_le_bytes(r.array("an int")?)),
        T_BOOL => match r.u8("a bool")? {
            0 => Value::Bool(false),
            1 => Value::Bool(true),
            b => return Err(CodecError::invalid(at + 1, format!("bad bool byte {b}")).into()),
        },
        T_VEC2 => Value::Vec2(f64s(r, "a vec2")?),
        T_VEC3 => Value::Vec3(f64s(r, "a vec3")?),
        T_VEC4 => Value::Vec4(f64s(r, "a vec4")?),
        T_COLOR => {
            let mut c = [0.0f32; 4];
            for x in &mut c {
                *x = r.f32("a color")?;
            }
            Value::Color(c)
        }
        T_STR => {
            let n = r.count(1, "string bytes")?;
            let b = r.take(n, "a string")?;
            let s = std::str::from_utf8(b)
                .map_err(|e| CodecError::invalid(at, format!("the string is not UTF-8 ({e})")))?;
            Value::Str(Arc::from(s))
        }
        T_LIST => {
            if depth >= MAX_DEPTH {
                return Err(CodecError::invalid(
                    at,
                    format!("lists nested deeper than {MAX_DEPTH}"),
                )
                .into());
            }
            // Every item takes at least its tag byte.
            let n = r.count(1, "list items")?;
            let mut items = Vec::with_capacity(n);
            for _ in 0..n {
                items.push(read_value(r, depth + 1, codecs)?);
            }
            Value::List(Arc::from(items))
        }
        T_RECORD => {
            if depth >= MAX_DEPTH {
                return Err(CodecError::invalid(
                    at,
                    format!("lists and records nested deeper than {MAX_DEPTH}"),
                )
                .into());
            }
            // Every field takes at least its name's length and its value's tag.
            let n = r.count(9, "record fields")?;
            let mut fields = Vec::with_capacity(n);
            for _ in 0..n {
                let len = r.count(1, "field name bytes")?;
                let at = r.position();
                let b = r.take(len, "a field name")?;
                let name = std::str::from_utf8(b).map_err(|e| {
                    CodecError::invalid(at, format!("the field name is not UTF-8 ({e})"))
                })?;
                let name: Arc<str> = Arc::from(name);
                fields.push((name, read_value(r, depth + 1, codecs)?));
            }
            Value::Record(Arc::new(kiln_core::record::Record::new(fields)))
        }
        t => match codecs.for_tag(t) {
            Some(codec) => codec.decode(r)?,
            None => return Err(DecodeError::UnknownTag { tag: t, at }),
        },
    })
}

fn f64s<const N: usize>(
    r: &mut ByteReader<'_>,
    what: &'static str,
) -> Result<[f64; N], CodecError> {
    let mut out = [0.0; N];
    for x in &mut out {
        *x = r.f64(what)?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reg() -> Registry {
        {
            let mut r = kiln_image::registry();
            kiln_audio::register(&mut r).expect("the image and audio ops are distinct");
            r
        }
    }

    fn bits(v: &Value) -> Vec<u8> {
        encode_value(v, &reg()).expect("encodable")
    }

    fn decode(bytes: &[u8]) -> Result<Value, String> {
        decode_value(bytes, &reg())
    }

    fn tag_of(type_name: &str) -> u8 {
        reg().codec(type_name).expect("a codec").tag()
    }

    #[test]
    fn records_are_tag_10_with_sorted_named_fields() {
        let r = Value::record([("b", Value::list([Value::Int(1)])), ("a", Value::Int(7))]);
        let bytes = bits(&r);
        let mut want = vec![10u8];
        want.extend(2u64.to_le_bytes());
        // Field `a` first (sorted), then `b`.
        want.extend(1u64.to_le_bytes());
        want.push(b'a');
        want.push(2);
        want.extend(7i64.to_le_bytes());
        want.extend(1u64.to_le_bytes());
        want.push(b'b');
        want.push(9);
        want.extend(1u64.to_le_bytes());
        want.push(2);
        want.extend(1i64.to_le_bytes());
        assert_eq!(bytes, want);
        let back = decode(&bytes).expect("decodes");
        assert!(back.same_bits(&r));
        // A field count larger than the bytes can hold is refused before allocating.
        let mut huge = vec![10u8];
        huge.extend(u64::MAX.to_le_bytes());
        assert!(decode(&huge).is_err());
    }

    #[test]
    fn floats_keep_their_bits() {
        for b in [
            0u64,
            (-0.0f64).to_bits(),
            f64::NAN.to_bits(),
            0x7ff0_0000_0000_0001,
            0xfff8_dead_beef_0001,
            1,
        ] {
            let v = Value::Float(f64::from_bits(b));
            let back = decode(&bits(&v)).expect("decodes");
            assert!(
                matches!(back, Value::Float(f) if f.to_bits() == b),
                "{b:#x}"
            );
        }
    }

    #[test]
    fn unencodable_values_are_refused() {
        assert_eq!(encode_value(&Value::Empty, &reg()), None);
        let inner = Value::List(Arc::from(vec![Value::Int(1), Value::Empty]));
        assert_eq!(encode_value(&inner, &reg()), None);
    }

    #[test]
    fn nesting_is_bounded_both_ways() {
        let mut v = Value::Int(1);
        for _ in 0..MAX_DEPTH {
            v = Value::List(Arc::from(vec![v]));
        }
        let ok = bits(&v);
        assert!(decode(&ok).expect("64 deep decodes").same_bits(&v));
        let deeper = Value::List(Arc::from(vec![v]));
        assert_eq!(encode_value(&deeper, &reg()), None);
        // Hand-made 65-deep input: refused, not recursed into.
        let mut raw = Vec::new();
        for _ in 0..=MAX_DEPTH {
            raw.push(T_LIST);
            raw.extend_from_slice(&1u64.to_le_bytes());
        }
        raw.push(T_INT);
        raw.extend_from_slice(&1i64.to_le_bytes());
        let err = decode(&raw).expect_err("too deep");
        assert!(err.contains("nested deeper"), "{err}");
        // A million list headers: still refused at depth 64.
        let mut huge = Vec::new();
        for _ in 0..1_000_000 {
            huge.push(T_LIST);
            huge.extend_from_slice(&1u64.to_le_bytes());
        }
        assert!(decode(&huge).is_err());
    }

    #[test]
    fn counts_larger_than_the_input_are_refused_before_allocating() {
        let audio = tag_of("audio");
        for tag in [T_STR, T_LIST, audio] {
            let mut raw = vec![tag];
            if tag == audio {
                raw.extend_from_slice(&[0; 6]);
            }
            raw.extend_from_slice(&u64::MAX.to_le_bytes());
            let err = decode(&raw).expect_err("huge count");
            assert!(err.contains("bad count"), "{err}");
        }
        let mut img = vec![tag_of("image")];
        img.extend_from_slice(&[0; 8]);
        img.extend_from_slice(&(u64::MAX / 8).to_le_bytes());
        assert!(decode(&img).is_err());
    }

    #[test]
    fn trailing_bytes_and_bad_tags_are_errors() {
        let mut b = bits(&Value::Int(3));
        b.push(0);
        assert!(decode(&b).expect_err("trailing").contains("trailing"));
        assert!(decode(&[200]).is_err());
        assert!(decode(&[]).is_err());
        assert!(decode(&[T_BOOL, 2]).is_err());
        assert!(decode(&[T_STR, 2, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xfe]).is_err());
    }

    #[test]
    fn heavy_tags_need_their_codec() {
        let image = kiln_image::image::Image::filled(1, 1, [1.0; 4]).into_value();
        let bytes = bits(&image);
        // Without codecs the image has no binary form, and its tag is unknown.
        let none = Registry::new();
        assert_eq!(encode_value(&image, &none), None);
        let err = decode_value(&bytes, &none).expect_err("no image codec");
        assert_eq!(err, format!("unknown value tag {} at byte 0", bytes[0]));
    }
}
