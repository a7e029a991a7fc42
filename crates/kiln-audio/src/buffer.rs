//! The audio buffer heavy type: interleaved samples at a sample rate.

use kiln_core::codec::{ByteReader, CodecError, HeavyCodec, write_f32s, write_len};
use kiln_core::key::KeyHasher;
use kiln_core::value::{Heavy, HeavyData, Value, ValueType};
use std::any::Any;

/// The registered type name of audio buffers.
pub const AUDIO: &str = "audio";
/// The port type of audio buffers.
pub const AUDIO_TYPE: ValueType = ValueType::Heavy(AUDIO);

/// Interleaved `f32` audio samples.
#[derive(Clone, Debug, PartialEq)]
pub struct AudioBuffer {
    /// Samples per second.
    pub sample_rate: u32,
    /// Number of interleaved channels.
    pub channels: u16,
    /// `frames * channels` samples, interleaved.
    pub samples: Vec<f32>,
}

impl AudioBuffer {
    /// Number of frames (samples per channel).
    pub fn frames(&self) -> usize {
        self.samples.len() / self.channels.max(1) as usize
    }
    /// Wrap into a value.
    pub fn into_value(self) -> Value {
        Value::Heavy(kiln_core::value::Heavy::new(self))
    }
}

impl HeavyData for AudioBuffer {
    fn type_name(&self) -> &'static str {
        AUDIO
    }
    fn byte_size(&self) -> usize {
        self.samples.len() * 4
    }
    fn hash_content(&self, h: &mut KeyHasher) {
        h.u64(self.sample_rate as u64);
        h.u64(self.channels as u64);
        h.f32_slice(&self.samples);
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// The binary form of audio buffers (tag 33): u32 sample rate, u16 channel count, u64 sample
/// count, then the samples as f32 bits.
#[derive(Clone, Copy, Debug, Default)]
pub struct AudioCodec;

impl HeavyCodec for AudioCodec {
    fn type_name(&self) -> &'static str {
        AUDIO
    }
    fn tag(&self) -> u8 {
        33
    }
    fn encode(&self, value: &Heavy, out: &mut Vec<u8>) -> Result<(), CodecError> {
        let a = value
            .downcast::<AudioBuffer>()
            .ok_or_else(|| CodecError::wrong_type(self, value))?;
        out.extend_from_slice(&a.sample_rate.to_le_bytes());
        out.extend_from_slice(&a.channels.to_le_bytes());
        write_len(out, a.samples.len());
        write_f32s(out, &a.samples);
        Ok(())
    }
    fn decode(&self, input: &mut ByteReader<'_>) -> Result<Value, CodecError> {
        let sample_rate = input.u32("a sample rate")?;
        let channels = input.u16("a channel count")?;
        let n = input.count(4, "samples")?;
        let samples = input.f32_vec(n, "samples")?;
        Ok(AudioBuffer {
            sample_rate,
            channels,
            samples,
        }
        .into_value())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn audio_buffers_are_shared_hashed_and_sized() {
        let a = AudioBuffer {
            sample_rate: 48_000,
            channels: 2,
            samples: vec![0.5; 96],
        };
        assert_eq!(a.frames(), 48);
        let v = a.clone().into_value();
        assert_eq!(v.value_type(), Some(AUDIO_TYPE));
        assert_eq!(v.byte_size() - std::mem::size_of::<Value>(), 384);
        assert_eq!(v.content_hash(), a.clone().into_value().content_hash());
        let mut b = a.clone();
        b.sample_rate = 44_100;
        assert_ne!(v.content_hash(), b.into_value().content_hash());
        assert_eq!(v.as_heavy::<AudioBuffer>(), Some(&a));
    }
}
