//! The audio buffer heavy type: interleaved samples at a sample rate.

use kiln_core::key::KeyHasher;
use kiln_core::value::{HeavyData, Value, ValueType};
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
