//! The latch state of a tick render in its output folder, `DIR/kiln-render.state`: what
//! `kiln render --resume` restores to continue a killed render without replaying from tick
//! 0. Unlike a snapshot file ([`crate::snapshot`]) it holds heavy values too (an image a
//! latch keeps), in the binary value codec ([`crate::value_codec`]).
//!
//! | bytes | content |
//! | --- | --- |
//! | 11 | `KILNRSTATE` and the version byte, 1 |
//! | 16 | the render's fingerprint (u128, little-endian) |
//! | 8 | the tick the state comes before (u64) |
//! | 8 | the number of latches (u64) |
//! | per latch | u64 id length, the id (UTF-8), u64 value length, the value's codec bytes |
//!
//! The file is written atomically; one that does not decode in full (truncated, trailing
//! bytes, a value no codec reads) is refused, and a resume then replays instead.

use crate::input_file::read_input_file;
use crate::value_codec::{decode_value, encode_value};
use crate::values::{WriteError, write_atomic};
use kiln_core::codec::ByteReader;
use kiln_core::recurrence::Snapshot;
use kiln_core::registry::Registry;
use std::path::{Path, PathBuf};

/// The state's file name in the output folder.
pub const STATE_NAME: &str = "kiln-render.state";

/// The first bytes of a state file: a magic word and the version.
const MAGIC: &[u8; 11] = b"KILNRSTATE\x01";

/// The largest state file read (4 GiB).
const MAX_STATE_BYTES: u64 = 1 << 32;

/// The state's path in output folder `dir`.
pub fn state_path(dir: &Path) -> PathBuf {
    dir.join(STATE_NAME)
}

/// The bytes of a state (see the module docs), or `None` when a latch holds a value with no
/// binary form (an error, a heavy value without a codec).
pub fn encode_state(fingerprint: u128, s: &Snapshot, registry: &Registry) -> Option<Vec<u8>> {
    let mut out = MAGIC.to_vec();
    out.extend_from_slice(&fingerprint.to_le_bytes());
    out.extend_from_slice(&s.tick.to_le_bytes());
    out.extend_from_slice(&(s.values.len() as u64).to_le_bytes());
    for (id, v) in &s.values {
        let bytes = encode_value(v, registry)?;
        out.extend_from_slice(&(id.len() as u64).to_le_bytes());
        out.extend_from_slice(id.as_bytes());
        out.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
        out.extend_from_slice(&bytes);
    }
    Some(out)
}

/// Read the bytes of a state: its fingerprint and snapshot, or what is wrong.
pub fn decode_state(bytes: &[u8], registry: &Registry) -> Result<(u128, Snapshot), String> {
    let mut r = ByteReader::new(bytes);
    let e = |e: kiln_core::codec::CodecError| e.to_string();
    if r.take(MAGIC.len(), "the magic word").map_err(e)? != MAGIC {
        return Err("not a render state (or another version)".into());
    }
    let fingerprint = u128::from_le_bytes(r.array("the fingerprint").map_err(e)?);
    let tick = r.u64("the tick").map_err(e)?;
    // Each latch takes at least 17 bytes (two lengths, one tag).
    let n = r.count(17, "latches").map_err(e)?;
    let mut s = Snapshot {
        tick,
        ..Snapshot::default()
    };
    for _ in 0..n {
        let len = r.count(1, "a latch id").map_err(e)?;
        let id = std::str::from_utf8(r.take(len, "a latch id").map_err(e)?)
            .map_err(|_| "a latch id is not UTF-8".to_string())?
            .to_string();
        let len = r.count(1, "a latch value").map_err(e)?;
        let value = decode_value(r.take(len, "a latch value").map_err(e)?, registry)
            .map_err(|m| format!("latch `{id}`: {m}"))?;
        if s.values.insert(id.clone(), value).is_some() {
            return Err(format!("latch `{id}` appears twice"));
        }
    }
    if r.remaining() != 0 {
        return Err(format!("{} bytes after the last latch", r.remaining()));
    }
    Ok((fingerprint, s))
}

/// Write the state of folder `dir` atomically. `Ok(false)`, writing nothing, when a latch
/// holds a value with no binary form.
pub fn write_state(
    dir: &Path,
    fingerprint: u128,
    s: &Snapshot,
    registry: &Registry,
) -> Result<bool, WriteError> {
    match encode_state(fingerprint, s, registry) {
        Some(bytes) => write_atomic(&state_path(dir), &bytes).map(|()| true),
        None => Ok(false),
    }
}

/// The state of folder `dir`: `None` when there is none, or when it cannot be read or
/// decoded (a resume then replays).
pub fn read_state(dir: &Path, registry: &Registry) -> Option<(u128, Snapshot)> {
    let bytes = read_input_file(&state_path(dir), MAX_STATE_BYTES).ok()?;
    decode_state(&bytes, registry).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use kiln_core::value::Value;

    #[test]
    fn a_state_with_an_image_reads_back_and_damage_is_refused() {
        let reg = kiln_image::registry();
        let mut s = Snapshot {
            tick: 41,
            ..Snapshot::default()
        };
        let img = kiln_image::image::Image::filled(3, 2, [0.5, -0.0, 1.0, 1.0]).into_value();
        s.values.insert("frame".into(), img.clone());
        s.values.insert("count".into(), Value::Int(-7));
        let bytes = encode_state(7, &s, &reg).unwrap();
        let (fp, back) = decode_state(&bytes, &reg).unwrap();
        assert_eq!((fp, back.tick), (7, 41));
        assert_eq!(back.values["frame"].content_hash(), img.content_hash());
        assert_eq!(back.values["count"], Value::Int(-7));
        for cut in [0, 5, 20, bytes.len() - 1] {
            assert!(decode_state(&bytes[..cut], &reg).is_err(), "cut at {cut}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(decode_state(&longer, &reg).is_err());
        // An error value has no binary form: no state.
        let mut bad = s.clone();
        bad.values.insert(
            "broken".into(),
            Value::Error(std::sync::Arc::new(kiln_core::eval::EvalError::Cancelled)),
        );
        assert!(encode_state(7, &bad, &reg).is_none());
    }
}
