//! Mass–spring cloth: a `w` × `h` lattice of unit masses joined by springs to their
//! neighbours (structural: right and down; shear: the diagonals; bend: two apart), integrated
//! with Störmer–Verlet:
//!
//! ```text
//! x' = x + (1 − damping) (x − x_prev) + a dt²,   a = gravity + wind + Σ springs
//! ```
//!
//! each spring pulling with `stiffness (|d| − rest) d / |d|`. Pinned points never move. The
//! scheme is symplectic, so without damping the energy stays bounded instead of drifting.
//! Each point's acceleration is summed over its springs in a fixed order, rows in parallel:
//! the same bits on any thread count.

use crate::particle_step::noise3;
use kiln_core::codec::{ByteReader, CodecError, HeavyCodec, write_f32s, write_len};
use kiln_core::key::KeyHasher;
use kiln_core::value::{Heavy, HeavyData, Value, ValueType};
use rayon::prelude::*;
use std::any::Any;

/// The registered type name of cloths.
pub const CLOTH: &str = "cloth";
/// The port type of cloths.
pub const CLOTH_TYPE: ValueType = ValueType::Heavy(CLOTH);

/// The spring offsets of a point and their rest lengths in spacings, in summing order.
pub(crate) const SPRINGS: [(i32, i32, f32); 12] = [
    (1, 0, 1.0),
    (-1, 0, 1.0),
    (0, 1, 1.0),
    (0, -1, 1.0),
    (1, 1, std::f32::consts::SQRT_2),
    (-1, -1, std::f32::consts::SQRT_2),
    (1, -1, std::f32::consts::SQRT_2),
    (-1, 1, std::f32::consts::SQRT_2),
    (2, 0, 2.0),
    (-2, 0, 2.0),
    (0, 2, 2.0),
    (0, -2, 2.0),
];

/// A cloth (see the module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct Cloth {
    /// Points across.
    pub width: u32,
    /// Points down.
    pub height: u32,
    /// Rest distance between neighbours.
    pub spacing: f32,
    /// Positions, row by row.
    pub pos: Vec<[f32; 3]>,
    /// Positions one step earlier.
    pub prev: Vec<[f32; 3]>,
    /// Which points are pinned.
    pub pinned: Vec<bool>,
    /// Steps run so far.
    pub steps: u64,
}

/// The forces and settings of a step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClothSettings {
    /// Seconds per substep.
    pub dt: f32,
    /// Spring stiffness (per unit mass).
    pub stiffness: f32,
    /// Fraction of the velocity lost per substep.
    pub damping: f32,
    /// Constant acceleration.
    pub gravity: [f32; 3],
    /// Constant wind acceleration.
    pub wind: [f32; 3],
    /// Strength of a wind noise varying over the cloth and in time.
    pub flutter: f32,
}

impl Cloth {
    /// A cloth hanging in the x-y plane, top row at y = 0, centred on x = 0, at rest; `pin`
    /// says which points are pinned from (column, row).
    pub fn hanging(width: u32, height: u32, spacing: f32, pin: impl Fn(u32, u32) -> bool) -> Cloth {
        let mut pos = vec![];
        let mut pinned = vec![];
        for j in 0..height {
            for i in 0..width {
                pos.push([
                    (i as f32 - (width - 1) as f32 / 2.0) * spacing,
                    -(j as f32) * spacing,
                    0.0,
                ]);
                pinned.push(pin(i, j));
            }
        }
        Cloth {
            width,
            height,
            spacing,
            prev: pos.clone(),
            pos,
            pinned,
            steps: 0,
        }
    }

    /// Wrap into a value.
    pub fn into_value(self) -> Value {
        Value::Heavy(Heavy::new(self))
    }

    /// The spring acceleration on point (i, j) at positions `pos`.
    fn springs(&self, pos: &[[f32; 3]], i: u32, j: u32, k: f32) -> [f32; 3] {
        let p = pos[(j * self.width + i) as usize];
        let mut a = [0.0f32; 3];
        for (di, dj, rest) in SPRINGS {
            let (ni, nj) = (i as i64 + di as i64, j as i64 + dj as i64);
            if ni < 0 || nj < 0 || ni >= self.width as i64 || nj >= self.height as i64 {
                continue;
            }
            let q = pos[(nj as u32 * self.width + ni as u32) as usize];
            let d = [q[0] - p[0], q[1] - p[1], q[2] - p[2]];
            let len = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
            if len > 0.0 {
                let f = k * (len - rest * self.spacing) / len;
                for c in 0..3 {
                    a[c] += f * d[c];
                }
            }
        }
        a
    }

    /// Total energy per unit mass: kinetic (from the last step's displacement over `dt`),
    /// spring and gravitational (against `gravity`), each spring counted once.
    pub fn energy(&self, s: &ClothSettings) -> f64 {
        let mut e = 0.0f64;
        for (n, (p, q)) in self.pos.iter().zip(&self.prev).enumerate() {
            let v: Vec<f64> = (0..3).map(|c| (p[c] - q[c]) as f64 / s.dt as f64).collect();
            e += 0.5 * v.iter().map(|x| x * x).sum::<f64>();
            e -= (0..3)
                .map(|c| s.gravity[c] as f64 * p[c] as f64)
                .sum::<f64>();
            let (i, j) = (n as u32 % self.width, n as u32 / self.width);
            for (di, dj, rest) in SPRINGS {
                let (ni, nj) = (i as i64 + di as i64, j as i64 + dj as i64);
                if ni < 0 || nj < 0 || ni >= self.width as i64 || nj >= self.height as i64 {
                    continue;
                }
                let o = self.pos[(nj * self.width as i64 + ni) as usize];
                let len = (0..3)
                    .map(|c| ((o[c] - p[c]) as f64).powi(2))
                    .sum::<f64>()
                    .sqrt();
                // Each spring appears from both ends: half each.
                e += 0.25 * s.stiffness as f64 * (len - (rest * self.spacing) as f64).powi(2);
            }
        }
        e
    }

    /// One Verlet substep (see the module docs).
    pub fn step(&self, s: &ClothSettings) -> Cloth {
        let w = self.width as usize;
        let t = self.steps as f32 * s.dt;
        let mut next = vec![[0.0f32; 3]; self.pos.len()];
        next.par_chunks_mut(w).enumerate().for_each(|(j, row)| {
            for (i, out) in row.iter_mut().enumerate() {
                let n = j * w + i;
                let (p, q) = (self.pos[n], self.prev[n]);
                if self.pinned[n] {
                    *out = p;
                    continue;
                }
                let mut a = self.springs(&self.pos, i as u32, j as u32, s.stiffness);
                let gust = if s.flutter != 0.0 {
                    noise3(0xF1A6, [p[0] * 0.7, p[1] * 0.7, t * 1.5])
                } else {
                    [0.0; 3]
                };
                for c in 0..3 {
                    a[c] += s.gravity[c] + s.wind[c] + s.flutter * gust[c];
                    out[c] = p[c] + (1.0 - s.damping) * (p[c] - q[c]) + a[c] * s.dt * s.dt;
                }
            }
        });
        Cloth {
            width: self.width,
            height: self.height,
            spacing: self.spacing,
            prev: self.pos.clone(),
            pos: next,
            pinned: self.pinned.clone(),
            steps: self.steps + 1,
        }
    }
}

impl HeavyData for Cloth {
    fn type_name(&self) -> &'static str {
        CLOTH
    }
    fn byte_size(&self) -> usize {
        self.pos.len() * 25 + 24
    }
    fn hash_content(&self, h: &mut KeyHasher) {
        h.u64(self.width as u64);
        h.u64(self.height as u64);
        h.f32_slice(&[self.spacing]);
        h.f32_slice(self.pos.as_flattened());
        h.f32_slice(self.prev.as_flattened());
        for &p in &self.pinned {
            h.u8(p as u8);
        }
        h.u64(self.steps);
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// The binary form of cloths (tag 42): u32 width, u32 height, f32 spacing, u64 steps, u64
/// point count, the positions and previous positions (3 f32 each), one byte per pin.
#[derive(Clone, Copy, Debug, Default)]
pub struct ClothCodec;

impl HeavyCodec for ClothCodec {
    fn type_name(&self) -> &'static str {
        CLOTH
    }
    fn tag(&self) -> u8 {
        42
    }
    fn encode(&self, value: &Heavy, out: &mut Vec<u8>) -> Result<(), CodecError> {
        let c = value
            .downcast::<Cloth>()
            .ok_or_else(|| CodecError::wrong_type(self, value))?;
        out.extend_from_slice(&c.width.to_le_bytes());
        out.extend_from_slice(&c.height.to_le_bytes());
        write_f32s(out, &[c.spacing]);
        out.extend_from_slice(&c.steps.to_le_bytes());
        write_len(out, c.pos.len());
        write_f32s(out, c.pos.as_flattened());
        write_f32s(out, c.prev.as_flattened());
        out.extend(c.pinned.iter().map(|&p| p as u8));
        Ok(())
    }
    fn decode(&self, input: &mut ByteReader<'_>) -> Result<Value, CodecError> {
        let at = input.position();
        let width = input.u32("a cloth's width")?;
        let height = input.u32("a cloth's height")?;
        let spacing = input.f32("a cloth's spacing")?;
        let steps = input.u64("a cloth's step count")?;
        let n = input.count(25, "cloth points")?;
        if n as u64 != width as u64 * height as u64 {
            return Err(CodecError::invalid(
                at,
                format!(
                    "a {width} x {height} cloth has {} points, found {n}",
                    width as u64 * height as u64
                ),
            ));
        }
        let tri = |v: Vec<f32>| {
            v.chunks_exact(3)
                .map(|c| [c[0], c[1], c[2]])
                .collect::<Vec<_>>()
        };
        let pos = tri(input.f32_vec(n * 3, "cloth positions")?);
        let prev = tri(input.f32_vec(n * 3, "cloth positions")?);
        let pinned = input
            .take(n, "cloth pins")?
            .iter()
            .map(|&b| b != 0)
            .collect();
        Ok(Cloth {
            width,
            height,
            spacing,
            pos,
            prev,
            pinned,
            steps,
        }
        .into_value())
    }
}
