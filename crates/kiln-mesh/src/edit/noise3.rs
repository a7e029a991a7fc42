//! Seeded 3D gradient noise (Perlin's, improved) and its fractal sum, for displacement.

use glam::Vec3;

/// A permutation table drawn from a seed.
pub struct Noise3 {
    perm: [u8; 512],
}

impl Noise3 {
    /// The table for `seed` (a Fisher–Yates shuffle driven by splitmix64).
    pub fn new(seed: u64) -> Noise3 {
        let mut p: [u8; 256] = std::array::from_fn(|i| i as u8);
        let mut s = seed;
        for i in (1..256).rev() {
            let j = (kiln_image::noise::splitmix64(&mut s) % (i as u64 + 1)) as usize;
            p.swap(i, j);
        }
        Noise3 {
            perm: std::array::from_fn(|i| p[i & 255]),
        }
    }

    fn grad(h: u8, x: f32, y: f32, z: f32) -> f32 {
        let h = h & 15;
        let u = if h < 8 { x } else { y };
        let v = if h < 4 {
            y
        } else if h == 12 || h == 14 {
            x
        } else {
            z
        };
        (if h & 1 == 0 { u } else { -u }) + (if h & 2 == 0 { v } else { -v })
    }

    /// Noise at `p`, in about −1 to 1; zero at every lattice point.
    pub fn at(&self, p: Vec3) -> f32 {
        let f = p.floor();
        let cell = |x: f32| (x as i64 & 255) as usize;
        let (xi, yi, zi) = (cell(f.x), cell(f.y), cell(f.z));
        let d = p - f;
        let fade = |t: f32| t * t * t * (t * (t * 6.0 - 15.0) + 10.0);
        let (u, v, w) = (fade(d.x), fade(d.y), fade(d.z));
        let pm = &self.perm;
        let a = pm[xi] as usize + yi;
        let (aa, ab) = (pm[a] as usize + zi, pm[a + 1] as usize + zi);
        let b = pm[xi + 1] as usize + yi;
        let (ba, bb) = (pm[b] as usize + zi, pm[b + 1] as usize + zi);
        let g = |i: usize, x: f32, y: f32, z: f32| Noise3::grad(pm[i], x, y, z);
        let lerp = |t: f32, a: f32, b: f32| a + t * (b - a);
        let (x, y, z) = (d.x, d.y, d.z);
        lerp(
            w,
            lerp(
                v,
                lerp(u, g(aa, x, y, z), g(ba, x - 1.0, y, z)),
                lerp(u, g(ab, x, y - 1.0, z), g(bb, x - 1.0, y - 1.0, z)),
            ),
            lerp(
                v,
                lerp(u, g(aa + 1, x, y, z - 1.0), g(ba + 1, x - 1.0, y, z - 1.0)),
                lerp(
                    u,
                    g(ab + 1, x, y - 1.0, z - 1.0),
                    g(bb + 1, x - 1.0, y - 1.0, z - 1.0),
                ),
            ),
        )
    }

    /// `octaves` of noise, each at twice the frequency and `gain` times the amplitude of the
    /// one before.
    pub fn fbm(&self, p: Vec3, octaves: u32, gain: f32) -> f32 {
        let (mut sum, mut amp, mut q) = (0.0, 1.0, p);
        for _ in 0..octaves {
            sum += amp * self.at(q);
            amp *= gain;
            q = q * 2.0 + Vec3::new(17.31, -9.7, 5.13);
        }
        sum
    }
}
