//! The value codec: values as bytes, bit for bit, for cache entries and blobs.
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
//! | 9 | list | u64 item count, the items (at most [`MAX_DEPTH`] lists deep) |
//! | 32 | image | u32 width, u32 height, u64 pixel count, pixels as 4 × f32 bits |
//! | 33 | audio | u32 sample rate, u16 channels, u64 sample count, f32 bits each |
//! | 34 | mesh | u64 count + positions (3 × f32), u64 count + normals (3 × f32), u64 count + triangles (3 × u32) |
//!
//! Counts are stored as they are (an image whose pixel count differs from width × height
//! reads back the same), so what was saved is what loads. Empty values, errors of failed
//! nodes and heavy types other than those of `kiln_std` (image, audio, mesh), directly or
//! inside a list, have no binary form. The payload must be consumed exactly: trailing bytes
//! are an error.

use kiln_core::value::{Heavy, Value};
use kiln_std::buffers::{AudioBuffer, Mesh};
use kiln_std::image::Image;
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
const T_IMAGE: u8 = 32;
const T_AUDIO: u8 = 33;
const T_MESH: u8 = 34;

/// The binary form of `value` (see the module docs), or `None` for a value that has none:
/// an empty value, the error of a failed node, a heavy value of a type other than image,
/// audio and mesh, or lists nested deeper than [`MAX_DEPTH`] (directly or inside a list).
pub fn encode_value(value: &Value) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    encode_into(value, 0, &mut out)?;
    Some(out)
}

fn put_len(out: &mut Vec<u8>, n: usize) {
    out.extend_from_slice(&(n as u64).to_le_bytes());
}

fn put_f64s(out: &mut Vec<u8>, v: &[f64]) {
    for x in v {
        out.extend_from_slice(&x.to_bits().to_le_bytes());
    }
}

fn put_f32s(out: &mut Vec<u8>, v: &[f32]) {
    out.reserve(v.len() * 4);
    for x in v {
        out.extend_from_slice(&x.to_bits().to_le_bytes());
    }
}

/// `depth` is the number of lists around `value`.
fn encode_into(value: &Value, depth: usize, out: &mut Vec<u8>) -> Option<()> {
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
            put_f32s(out, v);
        }
        Value::Str(s) => {
            out.push(T_STR);
            put_len(out, s.len());
            out.extend_from_slice(s.as_bytes());
        }
        Value::List(items) => {
            if depth >= MAX_DEPTH {
                return None;
            }
            out.push(T_LIST);
            put_len(out, items.len());
            for item in items.iter() {
                encode_into(item, depth + 1, out)?;
            }
        }
        Value::Heavy(h) => encode_heavy(h, out)?,
    }
    Some(())
}

fn encode_heavy(h: &Heavy, out: &mut Vec<u8>) -> Option<()> {
    if let Some(img) = h.downcast::<Image>() {
        out.push(T_IMAGE);
        out.extend_from_slice(&img.width.to_le_bytes());
        out.extend_from_slice(&img.height.to_le_bytes());
        put_len(out, img.pixels.len());
        put_f32s(out, img.pixels.as_flattened());
    } else if let Some(a) = h.downcast::<AudioBuffer>() {
        out.push(T_AUDIO);
        out.extend_from_slice(&a.sample_rate.to_le_bytes());
        out.extend_from_slice(&a.channels.to_le_bytes());
        put_len(out, a.samples.len());
        put_f32s(out, &a.samples);
    } else if let Some(m) = h.downcast::<Mesh>() {
        out.push(T_MESH);
        put_len(out, m.positions.len());
        put_f32s(out, m.positions.as_flattened());
        put_len(out, m.normals.len());
        put_f32s(out, m.normals.as_flattened());
        put_len(out, m.triangles.len());
        out.reserve(m.triangles.len() * 12);
        for i in m.triangles.as_flattened() {
            out.extend_from_slice(&i.to_le_bytes());
        }
    } else {
        return None;
    }
    Some(())
}

/// Read a value written by [`encode_value`]. Any other input (truncated, corrupted, with
/// trailing bytes, or lists nested deeper than [`MAX_DEPTH`]) is an error saying what is
/// wrong; nothing is allocated beyond what the input's length can fill.
pub fn decode_value(bytes: &[u8]) -> Result<Value, String> {
    let mut r = Reader { bytes, pos: 0 };
    let v = r.value(0)?;
    if r.pos != bytes.len() {
        return Err(format!(
            "{} trailing bytes after the value at byte {}",
            bytes.len() - r.pos,
            r.pos
        ));
    }
    Ok(v)
}

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }

    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], String> {
        if n > self.remaining() {
            return Err(format!(
                "truncated at byte {}: {what} needs {n} bytes, {} remain",
                self.pos,
                self.remaining()
            ));
        }
        let s = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N], String> {
        let s = self.take(N, what)?;
        s.try_into()
            .map_err(|_| format!("internal: {what} is not {N} bytes"))
    }

    fn u8(&mut self, what: &str) -> Result<u8, String> {
        Ok(self.array::<1>(what)?[0])
    }
    fn u16(&mut self, what: &str) -> Result<u16, String> {
        self.array(what).map(u16::from_le_bytes)
    }
    fn u32(&mut self, what: &str) -> Result<u32, String> {
        self.array(what).map(u32::from_le_bytes)
    }
    fn u64(&mut self, what: &str) -> Result<u64, String> {
        self.array(what).map(u64::from_le_bytes)
    }
    fn f64(&mut self, what: &str) -> Result<f64, String> {
        self.u64(what).map(f64::from_bits)
    }
    fn f32(&mut self, what: &str) -> Result<f32, String> {
        self.u32(what).map(f32::from_bits)
    }
    fn f64s<const N: usize>(&mut self, what: &str) -> Result<[f64; N], String> {
        let mut out = [0.0; N];
        for x in &mut out {
            *x = self.f64(what)?;
        }
        Ok(out)
    }

    /// A count of items of `item_bytes` bytes each, checked against the remaining input.
    fn count(&mut self, item_bytes: usize, what: &str) -> Result<usize, String> {
        let at = self.pos;
        let n = self.u64(what)?;
        let fits = usize::try_from(n)
            .ok()
            .and_then(|n| n.checked_mul(item_bytes).map(|b| (n, b)))
            .filter(|&(_, b)| b <= self.remaining());
        match fits {
            Some((n, _)) => Ok(n),
            None => Err(format!(
                "bad count at byte {at}: {n} {what} of {item_bytes} bytes do not fit in the {} bytes left",
                self.remaining()
            )),
        }
    }

    fn f32_vec(&mut self, n: usize, what: &str) -> Result<Vec<f32>, String> {
        let b = self.take(n * 4, what)?;
        Ok(b.chunks_exact(4)
            .map(|c| f32::from_bits(u32::from_le_bytes([c[0], c[1], c[2], c[3]])))
            .collect())
    }

    fn f32x3_vec(&mut self, what: &str) -> Result<Vec<[f32; 3]>, String> {
        let n = self.count(12, what)?;
        let flat = self.f32_vec(n * 3, what)?;
        Ok(flat.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect())
    }

    fn value(&mut self, depth: usize) -> Result<Value, String> {
        let at = self.pos;
        let tag = self.u8("a value's tag")?;
        Ok(match tag {
            T_FLOAT => Value::Float(self.f64("a float")?),
            T_INT => Value::Int(i64::from_le_bytes(self.array("an int")?)),
            T_BOOL => match self.u8("a bool")? {
                0 => Value::Bool(false),
                1 => Value::Bool(true),
                b => return Err(format!("bad bool byte {b} at byte {}", self.pos - 1)),
            },
            T_VEC2 => Value::Vec2(self.f64s("a vec2")?),
            T_VEC3 => Value::Vec3(self.f64s("a vec3")?),
            T_VEC4 => Value::Vec4(self.f64s("a vec4")?),
            T_COLOR => {
                let mut c = [0.0f32; 4];
                for x in &mut c {
                    *x = self.f32("a color")?;
                }
                Value::Color(c)
            }
            T_STR => {
                let n = self.count(1, "string bytes")?;
                let b = self.take(n, "a string")?;
                let s = std::str::from_utf8(b)
                    .map_err(|e| format!("the string at byte {at} is not UTF-8: {e}"))?;
                Value::Str(Arc::from(s))
            }
            T_LIST => {
                if depth >= MAX_DEPTH {
                    return Err(format!("lists nested deeper than {MAX_DEPTH} at byte {at}"));
                }
                // Every item takes at least its tag byte.
                let n = self.count(1, "list items")?;
                let mut items = Vec::with_capacity(n);
                for _ in 0..n {
                    items.push(self.value(depth + 1)?);
                }
                Value::List(Arc::from(items))
            }
            T_IMAGE => {
                let width = self.u32("an image's width")?;
                let height = self.u32("an image's height")?;
                let n = self.count(16, "pixels")?;
                let flat = self.f32_vec(n * 4, "pixels")?;
                let pixels = flat
                    .chunks_exact(4)
                    .map(|c| [c[0], c[1], c[2], c[3]])
                    .collect();
                Image {
                    width,
                    height,
                    pixels,
                }
                .into_value()
            }
            T_AUDIO => {
                let sample_rate = self.u32("a sample rate")?;
                let channels = self.u16("a channel count")?;
                let n = self.count(4, "samples")?;
                let samples = self.f32_vec(n, "samples")?;
                AudioBuffer {
                    sample_rate,
                    channels,
                    samples,
                }
                .into_value()
            }
            T_MESH => {
                let positions = self.f32x3_vec("positions")?;
                let normals = self.f32x3_vec("normals")?;
                let n = self.count(12, "triangles")?;
                let b = self.take(n * 12, "triangles")?;
                let triangles = b
                    .chunks_exact(12)
                    .map(|c| {
                        let u = |i: usize| u32::from_le_bytes([c[i], c[i + 1], c[i + 2], c[i + 3]]);
                        [u(0), u(4), u(8)]
                    })
                    .collect();
                Mesh {
                    positions,
                    normals,
                    triangles,
                }
                .into_value()
            }
            t => return Err(format!("unknown value tag {t} at byte {at}")),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bits(v: &Value) -> Vec<u8> {
        encode_value(v).expect("encodable")
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
            let back = decode_value(&bits(&v)).expect("decodes");
            assert!(
                matches!(back, Value::Float(f) if f.to_bits() == b),
                "{b:#x}"
            );
        }
    }

    #[test]
    fn unencodable_values_are_refused() {
        assert_eq!(encode_value(&Value::Empty), None);
        let inner = Value::List(Arc::from(vec![Value::Int(1), Value::Empty]));
        assert_eq!(encode_value(&inner), None);
    }

    #[test]
    fn nesting_is_bounded_both_ways() {
        let mut v = Value::Int(1);
        for _ in 0..MAX_DEPTH {
            v = Value::List(Arc::from(vec![v]));
        }
        let ok = bits(&v);
        assert!(decode_value(&ok).expect("64 deep decodes").same_bits(&v));
        let deeper = Value::List(Arc::from(vec![v]));
        assert_eq!(encode_value(&deeper), None);
        // Hand-made 65-deep input: refused, not recursed into.
        let mut raw = Vec::new();
        for _ in 0..=MAX_DEPTH {
            raw.push(T_LIST);
            raw.extend_from_slice(&1u64.to_le_bytes());
        }
        raw.push(T_INT);
        raw.extend_from_slice(&1i64.to_le_bytes());
        let err = decode_value(&raw).expect_err("too deep");
        assert!(err.contains("nested deeper"), "{err}");
        // A million list headers: still refused at depth 64.
        let mut huge = Vec::new();
        for _ in 0..1_000_000 {
            huge.push(T_LIST);
            huge.extend_from_slice(&1u64.to_le_bytes());
        }
        assert!(decode_value(&huge).is_err());
    }

    #[test]
    fn counts_larger_than_the_input_are_refused_before_allocating() {
        for tag in [T_STR, T_LIST, T_AUDIO] {
            let mut raw = vec![tag];
            if tag == T_AUDIO {
                raw.extend_from_slice(&[0; 6]);
            }
            raw.extend_from_slice(&u64::MAX.to_le_bytes());
            let err = decode_value(&raw).expect_err("huge count");
            assert!(err.contains("bad count"), "{err}");
        }
        let mut img = vec![T_IMAGE];
        img.extend_from_slice(&[0; 8]);
        img.extend_from_slice(&(u64::MAX / 8).to_le_bytes());
        assert!(decode_value(&img).is_err());
    }

    #[test]
    fn trailing_bytes_and_bad_tags_are_errors() {
        let mut b = bits(&Value::Int(3));
        b.push(0);
        assert!(decode_value(&b).expect_err("trailing").contains("trailing"));
        assert!(decode_value(&[200]).is_err());
        assert!(decode_value(&[]).is_err());
        assert!(decode_value(&[T_BOOL, 2]).is_err());
        assert!(decode_value(&[T_STR, 2, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xfe]).is_err());
    }
}
