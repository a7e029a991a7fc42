//! Heavy value types for audio and meshes. The nodes that make them arrive with the audio and
//! mesh libraries; the types are here so every crate agrees on them and on their hashes.

use kiln_core::key::KeyHasher;
use kiln_core::value::{HeavyData, Value, ValueType};
use std::any::Any;

/// The registered type name of audio buffers.
pub const AUDIO: &str = "audio";
/// The port type of audio buffers.
pub const AUDIO_TYPE: ValueType = ValueType::Heavy(AUDIO);
/// The registered type name of meshes.
pub const MESH: &str = "mesh";
/// The port type of meshes.
pub const MESH_TYPE: ValueType = ValueType::Heavy(MESH);

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

/// An indexed triangle mesh.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Mesh {
    /// Vertex positions.
    pub positions: Vec<[f32; 3]>,
    /// Per-vertex normals (empty or one per position).
    pub normals: Vec<[f32; 3]>,
    /// Triangles as triples of vertex indices.
    pub triangles: Vec<[u32; 3]>,
}

impl Mesh {
    /// Wrap into a value.
    pub fn into_value(self) -> Value {
        Value::Heavy(kiln_core::value::Heavy::new(self))
    }
}

impl HeavyData for Mesh {
    fn type_name(&self) -> &'static str {
        MESH
    }
    fn byte_size(&self) -> usize {
        (self.positions.len() + self.normals.len()) * 12 + self.triangles.len() * 12
    }
    fn hash_content(&self, h: &mut KeyHasher) {
        h.u64(self.positions.len() as u64);
        h.f32_slice(self.positions.as_flattened());
        h.u64(self.normals.len() as u64);
        h.f32_slice(self.normals.as_flattened());
        h.u64(self.triangles.len() as u64);
        for t in &self.triangles {
            for i in t {
                h.u64(*i as u64);
            }
        }
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn audio_and_mesh_are_shared_hashed_and_sized() {
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

        let m = Mesh {
            positions: vec![[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
            normals: vec![],
            triangles: vec![[0, 1, 2]],
        };
        let mv = m.clone().into_value();
        assert_eq!(mv.value_type(), Some(MESH_TYPE));
        let mut m2 = m.clone();
        m2.triangles[0] = [0, 2, 1];
        assert_ne!(mv.content_hash(), m2.into_value().content_hash());
        // Cloning a heavy value shares it rather than copying.
        let Value::Heavy(h) = &mv else { unreachable!() };
        let h2 = h.clone();
        assert!(std::ptr::eq(h.data(), h2.data()));
    }
}
