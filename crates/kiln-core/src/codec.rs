//! Binary codecs of heavy types: how a heavy value becomes bytes (in cache entries and baked
//! blobs) and back.
//!
//! The core knows no heavy type, so it cannot say how one is written. The crate that defines
//! a type also implements [`HeavyCodec`] for it and registers the codec next to its ops
//! ([`Registry::register_codec`](crate::registry::Registry::register_codec)); whoever stores
//! values (`kiln-io`) looks the codec up by the value's
//! [`type_name`](crate::value::Heavy::type_name) and never needs the concrete type.
//!
//! In a binary value encoding a heavy value is its codec's [`tag`](HeavyCodec::tag) byte, then
//! what [`encode`](HeavyCodec::encode) writes. Tags below [`FIRST_HEAVY_TAG`] are kept for
//! plain values. [`ByteReader`] reads the input with every length checked before anything is
//! allocated, and its errors say at which byte and what was wrong.
//!
//! ```
//! use kiln_core::codec::{ByteReader, CodecError, HeavyCodec, write_len};
//! use kiln_core::key::KeyHasher;
//! use kiln_core::value::{Heavy, HeavyData, Value};
//! use std::any::Any;
//!
//! #[derive(Debug)]
//! struct Word(String);
//! impl HeavyData for Word {
//!     fn type_name(&self) -> &'static str { "word" }
//!     fn byte_size(&self) -> usize { self.0.len() }
//!     fn hash_content(&self, h: &mut KeyHasher) { h.str(&self.0) }
//!     fn as_any(&self) -> &dyn Any { self }
//! }
//!
//! struct WordCodec;
//! impl HeavyCodec for WordCodec {
//!     fn type_name(&self) -> &'static str { "word" }
//!     fn tag(&self) -> u8 { 200 }
//!     fn encode(&self, value: &Heavy, out: &mut Vec<u8>) -> Result<(), CodecError> {
//!         let w = value.downcast::<Word>().ok_or(CodecError::wrong_type(self, value))?;
//!         write_len(out, w.0.len());
//!         out.extend_from_slice(w.0.as_bytes());
//!         Ok(())
//!     }
//!     fn decode(&self, input: &mut ByteReader<'_>) -> Result<Value, CodecError> {
//!         let n = input.count(1, "word bytes")?;
//!         let at = input.position();
//!         let text = std::str::from_utf8(input.take(n, "a word")?)
//!             .map_err(|e| CodecError::invalid(at, format!("not UTF-8: {e}")))?;
//!         Ok(Value::Heavy(Heavy::new(Word(text.to_string()))))
//!     }
//! }
//!
//! let mut bytes = vec![];
//! WordCodec.encode(&Heavy::new(Word("kiln".into())), &mut bytes).unwrap();
//! let back = WordCodec.decode(&mut ByteReader::new(&bytes)).unwrap();
//! assert_eq!(back.as_heavy::<Word>().map(|w| w.0.as_str()), Some("kiln"));
//! ```

use crate::value::{Heavy, Value};
use std::sync::Arc;

/// The lowest tag a heavy codec may use; tags below it mark plain values.
pub const FIRST_HEAVY_TAG: u8 = 32;

/// The binary form of one heavy type, implemented by the crate that defines the type.
///
/// A codec must be faithful both ways: what [`decode`](Self::decode) reads back from
/// [`encode`](Self::encode)'s bytes has the same content (and so the same content hash), and
/// whatever `decode` accepts encodes back to exactly the bytes it consumed.
pub trait HeavyCodec: Send + Sync + 'static {
    /// The heavy type this codec handles: the [`type_name`](crate::value::HeavyData::type_name)
    /// of its values.
    fn type_name(&self) -> &'static str;

    /// The byte that marks a value of this type in a binary value encoding: at least
    /// [`FIRST_HEAVY_TAG`], and unique among the codecs of a registry. Stored bytes depend on
    /// it, so it never changes once values have been written.
    fn tag(&self) -> u8;

    /// Append the content of `value` (without the tag) to `out`. A value of another type is
    /// an error ([`CodecError::wrong_type`]); `out` may then hold part of a value.
    fn encode(&self, value: &Heavy, out: &mut Vec<u8>) -> Result<(), CodecError>;

    /// Read one value written by [`encode`](Self::encode) at the reader's position (just
    /// after the tag), leaving the reader after it.
    fn decode(&self, input: &mut ByteReader<'_>) -> Result<Value, CodecError>;
}

/// Why a value could not be encoded or decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CodecError {
    /// The input ends before the value does.
    #[error("truncated at byte {at}: {what} needs {needed} bytes, {remaining} remain")]
    Truncated {
        /// Where the missing part starts.
        at: usize,
        /// What was being read.
        what: &'static str,
        /// The bytes it needs.
        needed: usize,
        /// The bytes left in the input.
        remaining: usize,
    },
    /// A stored count of items cannot be right: they would not fit in the rest of the input.
    #[error(
        "bad count at byte {at}: {count} {what} of {item_bytes} bytes do not fit in the {remaining} bytes left"
    )]
    BadCount {
        /// Where the count is.
        at: usize,
        /// The count read.
        count: u64,
        /// What is counted.
        what: &'static str,
        /// The size of one item.
        item_bytes: usize,
        /// The bytes left after the count.
        remaining: usize,
    },
    /// The bytes are not a value of this type.
    #[error("{message} at byte {at}")]
    Invalid {
        /// Where.
        at: usize,
        /// What is wrong.
        message: String,
    },
    /// A codec was given a heavy value of another type than its own.
    #[error("the `{codec}` codec cannot encode a heavy value of type `{found}`")]
    WrongType {
        /// The codec's type.
        codec: &'static str,
        /// The value's type.
        found: &'static str,
    },
}

impl CodecError {
    /// A value that `codec` cannot encode: not of its type.
    pub fn wrong_type(codec: &(impl HeavyCodec + ?Sized), value: &Heavy) -> CodecError {
        CodecError::WrongType {
            codec: codec.type_name(),
            found: value.type_name(),
        }
    }

    /// Bytes at `at` that are not what the codec expects.
    pub fn invalid(at: usize, message: impl Into<String>) -> CodecError {
        CodecError::Invalid {
            at,
            message: message.into(),
        }
    }
}

/// Append a count or length as a u64, little-endian.
pub fn write_len(out: &mut Vec<u8>, n: usize) {
    out.extend_from_slice(&(n as u64).to_le_bytes());
}

/// Append `f32`s by their bits (NaN payloads and `-0.0` kept), little-endian.
pub fn write_f32s(out: &mut Vec<u8>, v: &[f32]) {
    out.reserve(v.len() * 4);
    for x in v {
        out.extend_from_slice(&x.to_bits().to_le_bytes());
    }
}

/// A cursor over an encoded input. Every read checks the remaining length first, so no read
/// panics and no count makes it allocate more than the input could fill.
#[derive(Debug)]
pub struct ByteReader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> ByteReader<'a> {
    /// A reader at the start of `bytes`.
    pub fn new(bytes: &'a [u8]) -> Self {
        ByteReader { bytes, pos: 0 }
    }

    /// The position of the next byte to read (errors name positions in the whole input).
    pub fn position(&self) -> usize {
        self.pos
    }

    /// The bytes not read yet.
    pub fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }

    /// The next `n` bytes.
    pub fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], CodecError> {
        if n > self.remaining() {
            return Err(CodecError::Truncated {
                at: self.pos,
                what,
                needed: n,
                remaining: self.remaining(),
            });
        }
        let s = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    /// The next `N` bytes as an array.
    pub fn array<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N], CodecError> {
        let at = self.pos;
        let s = self.take(N, what)?;
        s.try_into()
            .map_err(|_| CodecError::invalid(at, format!("{what} is not {N} bytes")))
    }

    /// One byte.
    pub fn u8(&mut self, what: &'static str) -> Result<u8, CodecError> {
        Ok(self.array::<1>(what)?[0])
    }
    /// A little-endian u16.
    pub fn u16(&mut self, what: &'static str) -> Result<u16, CodecError> {
        self.array(what).map(u16::from_le_bytes)
    }
    /// A little-endian u32.
    pub fn u32(&mut self, what: &'static str) -> Result<u32, CodecError> {
        self.array(what).map(u32::from_le_bytes)
    }
    /// A little-endian u64.
    pub fn u64(&mut self, what: &'static str) -> Result<u64, CodecError> {
        self.array(what).map(u64::from_le_bytes)
    }
    /// An `f64` by its bits.
    pub fn f64(&mut self, what: &'static str) -> Result<f64, CodecError> {
        self.u64(what).map(f64::from_bits)
    }
    /// An `f32` by its bits.
    pub fn f32(&mut self, what: &'static str) -> Result<f32, CodecError> {
        self.u32(what).map(f32::from_bits)
    }

    /// A u64 count of items of `item_bytes` bytes each (`item_bytes` at least 1), refused when
    /// that many items cannot fit in the rest of the input.
    pub fn count(&mut self, item_bytes: usize, what: &'static str) -> Result<usize, CodecError> {
        let at = self.pos;
        let n = self.u64(what)?;
        let fits = usize::try_from(n)
            .ok()
            .and_then(|n| n.checked_mul(item_bytes).map(|b| (n, b)))
            .filter(|&(_, b)| b <= self.remaining());
        match fits {
            Some((n, _)) => Ok(n),
            None => Err(CodecError::BadCount {
                at,
                count: n,
                what,
                item_bytes,
                remaining: self.remaining(),
            }),
        }
    }

    /// `n` `f32`s by their bits.
    pub fn f32_vec(&mut self, n: usize, what: &'static str) -> Result<Vec<f32>, CodecError> {
        let len = n.checked_mul(4).ok_or(CodecError::Truncated {
            at: self.pos,
            what,
            needed: usize::MAX,
            remaining: self.remaining(),
        })?;
        let b = self.take(len, what)?;
        Ok(b.chunks_exact(4)
            .map(|c| f32::from_bits(u32::from_le_bytes([c[0], c[1], c[2], c[3]])))
            .collect())
    }
}

/// Why a codec could not be added to a [`Codecs`] table.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CodecConflict {
    /// The type already has a codec.
    #[error("heavy type `{0}` already has a codec")]
    Type(&'static str),
    /// Another type's codec uses the tag.
    #[error("codec tag {tag} of heavy type `{type_name}` is taken by heavy type `{taken_by}`")]
    Tag {
        /// The tag.
        tag: u8,
        /// The type being added.
        type_name: &'static str,
        /// The type whose codec has it.
        taken_by: &'static str,
    },
    /// The tag is below [`FIRST_HEAVY_TAG`].
    #[error(
        "codec tag {tag} of heavy type `{type_name}` is kept for plain values (heavy tags start at {FIRST_HEAVY_TAG})"
    )]
    ReservedTag {
        /// The tag.
        tag: u8,
        /// The type being added.
        type_name: &'static str,
    },
}

/// The codecs of a registry: at most one per heavy type and per tag. Cheap to clone (codecs
/// are shared), so a long-lived store can keep its own copy.
#[derive(Clone, Default)]
pub struct Codecs {
    list: Vec<Arc<dyn HeavyCodec>>,
}

impl Codecs {
    /// Add a codec; a type or a tag taken twice, or a tag below [`FIRST_HEAVY_TAG`], is an
    /// error.
    pub fn add(&mut self, codec: Arc<dyn HeavyCodec>) -> Result<(), CodecConflict> {
        let (type_name, tag) = (codec.type_name(), codec.tag());
        if tag < FIRST_HEAVY_TAG {
            return Err(CodecConflict::ReservedTag { tag, type_name });
        }
        if self.for_type(type_name).is_some() {
            return Err(CodecConflict::Type(type_name));
        }
        if let Some(other) = self.for_tag(tag) {
            return Err(CodecConflict::Tag {
                tag,
                type_name,
                taken_by: other.type_name(),
            });
        }
        self.list.push(codec);
        Ok(())
    }

    /// The codec of heavy type `type_name`.
    pub fn for_type(&self, type_name: &str) -> Option<&dyn HeavyCodec> {
        self.list
            .iter()
            .find(|c| c.type_name() == type_name)
            .map(|c| c.as_ref())
    }

    /// The codec whose tag is `tag`.
    pub fn for_tag(&self, tag: u8) -> Option<&dyn HeavyCodec> {
        self.list
            .iter()
            .find(|c| c.tag() == tag)
            .map(|c| c.as_ref())
    }

    /// Every codec, in the order added.
    pub fn iter(&self) -> impl Iterator<Item = &dyn HeavyCodec> {
        self.list.iter().map(|c| c.as_ref())
    }

    /// The number of codecs.
    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }
}

impl std::fmt::Debug for Codecs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.list.iter().map(|c| (c.type_name(), c.tag())))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Fake(&'static str, u8);
    impl HeavyCodec for Fake {
        fn type_name(&self) -> &'static str {
            self.0
        }
        fn tag(&self) -> u8 {
            self.1
        }
        fn encode(&self, value: &Heavy, _out: &mut Vec<u8>) -> Result<(), CodecError> {
            Err(CodecError::wrong_type(self, value))
        }
        fn decode(&self, input: &mut ByteReader<'_>) -> Result<Value, CodecError> {
            Err(CodecError::invalid(input.position(), "fake"))
        }
    }

    #[test]
    fn a_table_refuses_taken_types_and_tags_and_plain_tags() {
        let mut t = Codecs::default();
        t.add(Arc::new(Fake("a", 40))).expect("new");
        t.add(Arc::new(Fake("b", 41))).expect("new");
        assert_eq!(
            t.add(Arc::new(Fake("a", 42))),
            Err(CodecConflict::Type("a"))
        );
        assert_eq!(
            t.add(Arc::new(Fake("c", 41))),
            Err(CodecConflict::Tag {
                tag: 41,
                type_name: "c",
                taken_by: "b"
            })
        );
        assert_eq!(
            t.add(Arc::new(Fake("d", 9))),
            Err(CodecConflict::ReservedTag {
                tag: 9,
                type_name: "d"
            })
        );
        assert_eq!(t.len(), 2);
        assert_eq!(t.for_type("b").map(|c| c.tag()), Some(41));
        assert_eq!(t.for_tag(40).map(|c| c.type_name()), Some("a"));
        assert!(t.for_tag(42).is_none() && t.for_type("c").is_none());
    }

    #[test]
    fn a_registry_holds_codecs_by_type() {
        let mut reg = crate::registry::Registry::new();
        reg.register_codec(Fake("a", 40)).expect("new");
        assert_eq!(reg.codec("a").map(|c| c.tag()), Some(40));
        assert!(reg.codec("b").is_none());
        assert_eq!(
            reg.register_codec(Fake("a", 41)),
            Err(crate::registry::RegistryError::Codec(CodecConflict::Type(
                "a"
            )))
        );
        assert_eq!(reg.codecs().len(), 1);
        // Codecs are not ops.
        assert!(reg.is_empty());
    }

    #[test]
    fn a_reader_checks_lengths_and_counts_before_reading() {
        let bytes = [7u8, 1, 0, 0, 0, 0, 0, 0, 0, 0xAB];
        let mut r = ByteReader::new(&bytes);
        assert_eq!(r.u8("a tag"), Ok(7));
        assert_eq!(r.count(1, "items"), Ok(1));
        assert_eq!(r.position(), 9);
        assert_eq!(r.take(1, "an item"), Ok(&[0xABu8][..]));
        assert_eq!(
            r.u32("a width"),
            Err(CodecError::Truncated {
                at: 10,
                what: "a width",
                needed: 4,
                remaining: 0
            })
        );
        // 2 items of 8 bytes after the count do not fit in 0 bytes.
        let mut r = ByteReader::new(&[2, 0, 0, 0, 0, 0, 0, 0]);
        let e = r.count(8, "floats").expect_err("too many");
        assert_eq!(
            e.to_string(),
            "bad count at byte 0: 2 floats of 8 bytes do not fit in the 0 bytes left"
        );
        let mut r = ByteReader::new(&[0, 0, 0x80, 0x7f, 0, 0, 0, 0x80]);
        let v = r.f32_vec(2, "samples").expect("two floats");
        assert_eq!(v[0], f32::INFINITY);
        assert_eq!(v[1].to_bits(), (-0.0f32).to_bits());
        assert!(r.f32_vec(usize::MAX, "samples").is_err());
    }

    #[test]
    fn writers_are_little_endian_and_keep_bits() {
        let mut out = vec![];
        write_len(&mut out, 258);
        write_f32s(&mut out, &[-0.0, f32::from_bits(0x7fa0_1234)]);
        assert_eq!(
            out,
            [
                2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80, 0x34, 0x12, 0xa0, 0x7f
            ]
        );
    }
}
