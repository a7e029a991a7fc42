//! The particle system heavy type: particles in 3D with velocity, age, lifetime and a hue,
//! stored as arrays, and the emitter's bookkeeping (a fractional emission carried between
//! steps, the count emitted so far, which seeds each new particle's random numbers).

use kiln_core::codec::{ByteReader, CodecError, HeavyCodec, write_f32s, write_len};
use kiln_core::key::KeyHasher;
use kiln_core::value::{Heavy, HeavyData, Value, ValueType};
use std::any::Any;

/// The registered type name of particle systems.
pub const PARTICLES: &str = "particles";
/// The port type of particle systems.
pub const PARTICLES_TYPE: ValueType = ValueType::Heavy(PARTICLES);

/// One particle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Particle {
    /// Position.
    pub pos: [f32; 3],
    /// Velocity per second.
    pub vel: [f32; 3],
    /// Seconds since it was emitted.
    pub age: f32,
    /// Seconds it lives.
    pub life: f32,
    /// Colour hue in 0..1.
    pub hue: f32,
}

/// A particle system (see the module docs).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Particles {
    /// The live particles, oldest first.
    pub items: Vec<Particle>,
    /// Particles owed to the emitter's rate, below one.
    pub carry: f32,
    /// Particles emitted so far (the next particle's index).
    pub emitted: u64,
    /// Steps run so far.
    pub steps: u64,
}

impl Drop for Particles {
    fn drop(&mut self) {
        crate::particle_pool::give(std::mem::take(&mut self.items));
    }
}

impl Particles {
    /// Wrap into a value.
    pub fn into_value(self) -> Value {
        Value::Heavy(Heavy::new(self))
    }
}

const FLOATS: usize = 9;
/// Particles hashed per call of the hasher.
const HASH_RUN: usize = 1024;

fn flat(p: &Particle) -> [f32; FLOATS] {
    [
        p.pos[0], p.pos[1], p.pos[2], p.vel[0], p.vel[1], p.vel[2], p.age, p.life, p.hue,
    ]
}

impl HeavyData for Particles {
    fn type_name(&self) -> &'static str {
        PARTICLES
    }
    fn byte_size(&self) -> usize {
        self.items.len() * std::mem::size_of::<Particle>() + 24
    }
    fn hash_content(&self, h: &mut KeyHasher) {
        h.u64(self.items.len() as u64);
        // The particles' floats in order, fed a run at a time (the same bytes as one
        // particle at a time, so the same key, without a call per particle).
        let mut run = Vec::with_capacity(HASH_RUN * FLOATS);
        for chunk in self.items.chunks(HASH_RUN) {
            run.clear();
            run.extend(chunk.iter().flat_map(flat));
            h.f32_slice(&run);
        }
        h.f32_slice(&[self.carry]);
        h.u64(self.emitted);
        h.u64(self.steps);
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// The binary form of particle systems (tag 41): f32 carry, u64 emitted, u64 steps, u64
/// particle count, then 9 f32 per particle (position, velocity, age, life, hue).
#[derive(Clone, Copy, Debug, Default)]
pub struct ParticlesCodec;

impl HeavyCodec for ParticlesCodec {
    fn type_name(&self) -> &'static str {
        PARTICLES
    }
    fn tag(&self) -> u8 {
        41
    }
    fn encode(&self, value: &Heavy, out: &mut Vec<u8>) -> Result<(), CodecError> {
        let s = value
            .downcast::<Particles>()
            .ok_or_else(|| CodecError::wrong_type(self, value))?;
        write_f32s(out, &[s.carry]);
        out.extend_from_slice(&s.emitted.to_le_bytes());
        out.extend_from_slice(&s.steps.to_le_bytes());
        write_len(out, s.items.len());
        for p in &s.items {
            write_f32s(out, &flat(p));
        }
        Ok(())
    }
    fn decode(&self, input: &mut ByteReader<'_>) -> Result<Value, CodecError> {
        let carry = input.f32("the emitter's carry")?;
        let emitted = input.u64("the emitted count")?;
        let steps = input.u64("the step count")?;
        let n = input.count(FLOATS * 4, "particles")?;
        let f = input.f32_vec(n * FLOATS, "particles")?;
        let items = f
            .chunks_exact(FLOATS)
            .map(|c| Particle {
                pos: [c[0], c[1], c[2]],
                vel: [c[3], c[4], c[5]],
                age: c[6],
                life: c[7],
                hue: c[8],
            })
            .collect();
        Ok(Particles {
            items,
            carry,
            emitted,
            steps,
        }
        .into_value())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_system_hashes_as_its_particles_fed_one_by_one() {
        let items: Vec<Particle> = (0..2500)
            .map(|i| Particle {
                pos: [i as f32, -0.0, 2.5],
                vel: [0.1, f32::NAN, 0.3],
                age: 0.5,
                life: i as f32 * 0.25,
                hue: 0.75,
            })
            .collect();
        let mut by_one = KeyHasher::new();
        by_one.u64(items.len() as u64);
        for p in &items {
            for x in flat(p) {
                by_one.f32(x);
            }
        }
        by_one.f32(0.25);
        by_one.u64(7);
        by_one.u64(3);
        let s = Particles {
            items,
            carry: 0.25,
            emitted: 7,
            steps: 3,
        };
        let mut h = KeyHasher::new();
        s.hash_content(&mut h);
        assert_eq!(h.finish_key(), by_one.finish_key());
    }

    #[test]
    fn particles_round_trip_through_their_codec() {
        let s = Particles {
            items: vec![Particle {
                pos: [1.0, -0.0, 2.5],
                vel: [0.1, 0.2, 0.3],
                age: 0.5,
                life: 2.0,
                hue: 0.75,
            }],
            carry: 0.25,
            emitted: 7,
            steps: 3,
        };
        let v = s.clone().into_value();
        let Value::Heavy(h) = &v else { panic!() };
        let mut bytes = vec![];
        ParticlesCodec.encode(h, &mut bytes).unwrap();
        let back = ParticlesCodec.decode(&mut ByteReader::new(&bytes)).unwrap();
        assert!(back.same_bits(&v));
        assert_eq!(back.as_heavy::<Particles>(), Some(&s));
        assert!(
            ParticlesCodec
                .decode(&mut ByteReader::new(&bytes[..bytes.len() - 1]))
                .is_err()
        );
    }
}
