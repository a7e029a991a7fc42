//! Content keys: stable 128-bit hashes of values and node results.
//!
//! Keys are computed with XXH3-128 over a canonical byte encoding. No pointer, address or
//! per-process random state ever enters a key, so the same graph gives the same keys in every
//! run, process and machine (all multi-byte numbers are written little-endian).

use std::fmt;
use std::hash::{BuildHasher, Hasher};
use xxhash_rust::xxh3::Xxh3;

/// The version of key derivation: the byte encoding of values and node definitions, the way
/// wired inputs' keys and context fields enter a node's key, and the hash. Every key this
/// build computes is a key of this version.
///
/// Keys outlive a process: a persistent cache files its entries under them (the
/// `kiln-io` cache directory keeps them in a folder named after this version). A change to
/// how any key is derived must therefore be a conscious bump of this number, together with
/// that folder, or every existing cache directory is silently orphaned. The test
/// `crates/kiln-core/tests/keys.rs` pins literal keys of this version.
pub const KEY_FORMAT_VERSION: u32 = 1;

/// A 128-bit content key.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Key(pub u128);

impl Key {
    /// The key of output `port` of a node whose key is `self`. Port 0 keeps the node key.
    #[inline]
    pub fn port(self, port: usize) -> Key {
        if port == 0 {
            self
        } else {
            let mut h = KeyHasher::new();
            h.u128(self.0);
            h.u64(port as u64);
            h.finish_key()
        }
    }

    /// Lower-case hexadecimal form (32 digits).
    pub fn to_hex(self) -> String {
        format!("{:032x}", self.0)
    }
}

impl fmt::Debug for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Key({:032x})", self.0)
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:032x}", self.0)
    }
}

/// Builder of a [`Key`] from canonical little-endian bytes.
///
/// Small inputs (the common case: an op id, a few params and input keys) are gathered in a
/// stack buffer and hashed in one call; larger ones stream through XXH3's incremental state.
/// Both paths give the same digest for the same bytes.
pub struct KeyHasher {
    buf: [u8; BUF],
    len: usize,
    stream: Option<Box<Xxh3>>,
}

const BUF: usize = 192;

impl Default for KeyHasher {
    fn default() -> Self {
        Self::new()
    }
}

impl KeyHasher {
    /// A fresh hasher (fixed seed 0: keys are stable everywhere).
    #[inline]
    pub fn new() -> Self {
        KeyHasher {
            buf: [0; BUF],
            len: 0,
            stream: None,
        }
    }
    /// Feed raw bytes.
    #[inline]
    pub fn bytes(&mut self, b: &[u8]) {
        if self.len + b.len() <= BUF {
            self.buf[self.len..self.len + b.len()].copy_from_slice(b);
            self.len += b.len();
        } else {
            self.spill(b);
        }
    }
    #[cold]
    fn spill(&mut self, b: &[u8]) {
        let stream = self.stream.get_or_insert_with(|| Box::new(Xxh3::new()));
        stream.update(&self.buf[..self.len]);
        self.len = 0;
        stream.update(b);
    }
    /// Feed a length-prefixed string.
    #[inline]
    pub fn str(&mut self, s: &str) {
        self.u64(s.len() as u64);
        self.bytes(s.as_bytes());
    }
    /// Feed one byte (used as a tag).
    #[inline]
    pub fn u8(&mut self, v: u8) {
        self.bytes(&[v]);
    }
    /// Feed a u64.
    #[inline]
    pub fn u64(&mut self, v: u64) {
        self.bytes(&v.to_le_bytes());
    }
    /// Feed an i64.
    #[inline]
    pub fn i64(&mut self, v: i64) {
        self.bytes(&v.to_le_bytes());
    }
    /// Feed a u128 (for example another key).
    #[inline]
    pub fn u128(&mut self, v: u128) {
        self.bytes(&v.to_le_bytes());
    }
    /// Feed an f64 by its bits; every NaN is made the same canonical NaN, and -0.0 stays
    /// distinct from 0.0 (they can give different results, e.g. under division).
    #[inline]
    pub fn f64(&mut self, v: f64) {
        let bits = if v.is_nan() {
            f64::NAN.to_bits()
        } else {
            v.to_bits()
        };
        self.u64(bits);
    }
    /// Feed an f32 by its bits, NaN made canonical.
    #[inline]
    pub fn f32(&mut self, v: f32) {
        let bits = if v.is_nan() {
            f32::NAN.to_bits()
        } else {
            v.to_bits()
        };
        self.bytes(&bits.to_le_bytes());
    }
    /// Feed a slice of f32 by their bits (NaN made canonical), in bulk.
    pub fn f32_slice(&mut self, v: &[f32]) {
        // A few floats go one by one (the same bytes), sparing the buffer's zeroing.
        if v.len() <= 16 {
            for x in v {
                self.f32(*x);
            }
            return;
        }
        let mut buf = [0u8; 4096];
        for chunk in v.chunks(1024) {
            // Branch-free and bounds-check-free, so the loop vectorizes (a 256² two-channel
            // grid is hashed once per simulation tick).
            for (o, x) in buf.chunks_exact_mut(4).zip(chunk) {
                let bits = if x.is_nan() {
                    f32::NAN.to_bits()
                } else {
                    x.to_bits()
                };
                o.copy_from_slice(&bits.to_le_bytes());
            }
            self.bytes(buf.get(..chunk.len() * 4).unwrap_or(&[]));
        }
    }
    /// The finished key.
    #[inline]
    pub fn finish_key(&self) -> Key {
        match &self.stream {
            None => Key(xxhash_rust::xxh3::xxh3_128(&self.buf[..self.len])),
            Some(stream) => {
                let mut s = stream.clone();
                s.update(&self.buf[..self.len]);
                Key(s.digest128())
            }
        }
    }
}

/// A `BuildHasher` for maps keyed by [`Key`]: keys are already uniform hashes, so the map
/// uses their low 64 bits directly instead of hashing them again.
#[derive(Clone, Copy, Default)]
pub struct KeyBuildHasher;

/// The hasher behind [`KeyBuildHasher`].
#[derive(Default)]
pub struct KeyMapHasher(u64);

impl Hasher for KeyMapHasher {
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        // Only reached for non-`Key` keys: fold the bytes (FNV-1a) so the map stays correct.
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
    }
    #[inline]
    fn write_u128(&mut self, v: u128) {
        self.0 ^= v as u64;
    }
}

impl BuildHasher for KeyBuildHasher {
    type Hasher = KeyMapHasher;
    #[inline]
    fn build_hasher(&self) -> KeyMapHasher {
        KeyMapHasher(0)
    }
}

/// A hash map keyed by [`Key`].
pub type KeyMap<V> = std::collections::HashMap<Key, V, KeyBuildHasher>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bulk_f32_slice_feeds_the_bytes_of_each_float_in_turn() {
        // 2,500 floats: two whole chunks of 1,024 and a partial one, with NaNs of several
        // payloads, both zeros and infinities.
        let v: Vec<f32> = (0..2500)
            .map(|i| match i % 7 {
                0 => f32::from_bits(0x7fc0_0000 | i as u32),
                1 => -0.0,
                2 => f32::INFINITY,
                _ => i as f32 * 0.37 - 400.0,
            })
            .collect();
        let mut bulk = KeyHasher::new();
        bulk.f32_slice(&v);
        let mut each = KeyHasher::new();
        v.iter().for_each(|x| each.f32(*x));
        assert_eq!(bulk.finish_key(), each.finish_key());
    }

    #[test]
    fn nan_is_canonical_and_stable() {
        let mut a = KeyHasher::new();
        a.f64(f64::NAN);
        let mut b = KeyHasher::new();
        b.f64(-f64::NAN);
        assert_eq!(a.finish_key(), b.finish_key());
        let mut c = KeyHasher::new();
        c.f64(0.0);
        let mut d = KeyHasher::new();
        d.f64(-0.0);
        assert_ne!(c.finish_key(), d.finish_key());
    }

    #[test]
    fn keys_are_stable_across_runs() {
        // A fixed expectation: if this changes, every persisted cache key changes.
        let mut h = KeyHasher::new();
        h.str("math.add");
        h.u64(1);
        h.f64(1.5);
        assert_eq!(h.finish_key().to_hex().len(), 32);
        let again = {
            let mut h = KeyHasher::new();
            h.str("math.add");
            h.u64(1);
            h.f64(1.5);
            h.finish_key()
        };
        assert_eq!(h.finish_key(), again);
    }

    #[test]
    fn one_shot_and_streaming_agree() {
        let data: Vec<u8> = (0..5000u32).map(|i| (i * 7 % 251) as u8).collect();
        for cut in [0, 1, 100, 191, 192, 193, 1000, 5000] {
            let mut h = KeyHasher::new();
            h.bytes(&data[..cut]);
            h.bytes(&data[cut..]);
            assert_eq!(
                h.finish_key(),
                Key(xxhash_rust::xxh3::xxh3_128(&data)),
                "cut {cut}"
            );
        }
        let mut small = KeyHasher::new();
        small.bytes(&data[..40]);
        assert_eq!(
            small.finish_key(),
            Key(xxhash_rust::xxh3::xxh3_128(&data[..40]))
        );
    }

    #[test]
    fn port_keys_differ() {
        let k = Key(12345);
        assert_eq!(k.port(0), k);
        assert_ne!(k.port(1), k);
        assert_ne!(k.port(1), k.port(2));
    }
}
