//! Rigid bodies through rapier: boxes and balls with density, restitution and friction,
//! over an optional ground (the plane y = 0), stepped by rapier's solver with its
//! `enhanced-determinism` feature (the same bits on every platform and thread count).
//!
//! The state ([`RigidWorld`]) *is* rapier's whole world serialised (bodies, colliders,
//! broad and narrow phase with their contact caches, islands; postcard over rapier's serde
//! forms): a step decodes it, runs its substeps and encodes it again. A state restored from
//! a snapshot or a state file is therefore the very bytes a straight run stepped from, and
//! continues with the same bits; rebuilding rapier's world from the bodies' poses alone
//! would lose the contact caches its solver warm-starts from. The bodies' poses, velocities
//! and energies are read out once per state for the views.
//!
//! Rapier integrates with symplectic Euler (velocity first, then position): a free body
//! falls `y_n = y_0 − g dt² n(n+1)/2` after `n` steps, within `g dt t / 2` of
//! `y_0 − g t²/2`.

use kiln_core::codec::{ByteReader, CodecError, HeavyCodec, write_len};
use kiln_core::key::KeyHasher;
use kiln_core::value::{Heavy, HeavyData, Value, ValueType};
use rapier3d::prelude::{ColliderBuilder, PhysicsWorld, RigidBodyBuilder, Vector};
use std::any::Any;

/// The registered type name of rigid-body worlds.
pub const RIGID: &str = "rigid";
/// The port type of rigid-body worlds.
pub const RIGID_TYPE: ValueType = ValueType::Heavy(RIGID);
/// The most bodies a world may hold.
pub const MAX_BODIES: usize = 4096;
/// The most substeps a step may take.
pub const MAX_SUBSTEPS: u32 = 100;

/// A body's shape.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BodyShape {
    /// A box of these half extents.
    Box([f32; 3]),
    /// A ball of this radius.
    Ball(f32),
}

/// A body to put into a new world.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodyDesc {
    /// Its shape.
    pub shape: BodyShape,
    /// Its centre.
    pub position: [f32; 3],
    /// Its rotation as a scaled axis (axis times angle in radians).
    pub rotation: [f32; 3],
    /// Its initial velocity.
    pub velocity: [f32; 3],
    /// Mass per unit volume.
    pub density: f32,
    /// Bounciness, 0 to 1.
    pub restitution: f32,
    /// Coulomb friction coefficient.
    pub friction: f32,
}

/// A body as it is in a state: what the views and tests read.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodyState {
    /// Its shape.
    pub shape: BodyShape,
    /// Its centre.
    pub position: [f32; 3],
    /// Its orientation as a unit quaternion (x, y, z, w).
    pub rotation: [f32; 4],
    /// Its linear velocity.
    pub velocity: [f32; 3],
    /// Its mass.
    pub mass: f32,
    /// Its kinetic energy, translational and rotational.
    pub kinetic: f32,
}

/// Why a world could not be made or stepped.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum RigidError {
    /// More bodies than [`MAX_BODIES`].
    #[error("{0} bodies is over the limit of {MAX_BODIES} (MAX_BODIES)")]
    TooManyBodies(usize),
    /// A size, density or friction that is not a positive (or non-negative) finite number.
    #[error("body {index}: {what}")]
    BadBody {
        /// Which body.
        index: usize,
        /// What is wrong.
        what: String,
    },
    /// The serialised world did not read back.
    #[error("the physics world does not decode: {0}")]
    Decode(String),
    /// The world did not serialise.
    #[error("the physics world does not encode: {0}")]
    Encode(String),
}

/// A rigid-body world (see the module docs).
#[derive(Clone, Debug)]
pub struct RigidWorld {
    world: Vec<u8>,
    bodies: Vec<BodyState>,
    ground: bool,
    steps: u64,
}

fn check_body(i: usize, b: &BodyDesc) -> Result<(), RigidError> {
    let bad = |what: String| RigidError::BadBody { index: i, what };
    let size_ok = match b.shape {
        BodyShape::Box(h) => h.iter().all(|&x| x.is_finite() && x > 0.0 && x < 1e6),
        BodyShape::Ball(r) => r.is_finite() && r > 0.0 && r < 1e6,
    };
    if !size_ok {
        return Err(bad(format!(
            "sizes must be positive and below 1e6, found {:?}",
            b.shape
        )));
    }
    let finite = b
        .position
        .iter()
        .chain(&b.rotation)
        .chain(&b.velocity)
        .all(|x| x.is_finite() && x.abs() < 1e9);
    if !finite {
        return Err(bad("position, rotation and velocity must be finite".into()));
    }
    if !(b.density.is_finite() && b.density > 0.0) {
        return Err(bad(format!(
            "density must be positive, found {}",
            b.density
        )));
    }
    let ok = (0.0..=1.0).contains(&b.restitution) && b.friction.is_finite() && b.friction >= 0.0;
    if !ok {
        return Err(bad(format!(
            "restitution must be in [0, 1] and friction non-negative, found {} and {}",
            b.restitution, b.friction
        )));
    }
    Ok(())
}

fn v3(a: [f32; 3]) -> Vector {
    Vector::new(a[0], a[1], a[2])
}

fn decode_world(bytes: &[u8]) -> Result<PhysicsWorld, RigidError> {
    postcard::from_bytes(bytes).map_err(|e| RigidError::Decode(e.to_string()))
}

impl RigidWorld {
    /// A world of `bodies` at rest (or moving at their velocities), over the ground plane
    /// y = 0 (of `ground_friction`) when `ground` is set.
    pub fn new(
        bodies: &[BodyDesc],
        ground: bool,
        ground_friction: f32,
    ) -> Result<RigidWorld, RigidError> {
        if bodies.len() > MAX_BODIES {
            return Err(RigidError::TooManyBodies(bodies.len()));
        }
        for (i, b) in bodies.iter().enumerate() {
            check_body(i, b)?;
        }
        let mut w = PhysicsWorld::default();
        if ground {
            // A thick slab whose top face is the plane y = 0.
            w.insert(
                RigidBodyBuilder::fixed().translation(Vector::new(0.0, -50.0, 0.0)),
                ColliderBuilder::cuboid(1.0e4, 50.0, 1.0e4)
                    .friction(ground_friction.max(0.0))
                    .restitution(0.0),
            );
        }
        for b in bodies {
            let body = RigidBodyBuilder::dynamic()
                .translation(v3(b.position))
                .rotation(v3(b.rotation))
                .linvel(v3(b.velocity));
            let collider = match b.shape {
                BodyShape::Box(h) => ColliderBuilder::cuboid(h[0], h[1], h[2]),
                BodyShape::Ball(r) => ColliderBuilder::ball(r),
            }
            .density(b.density)
            .restitution(b.restitution)
            .friction(b.friction);
            w.insert(body, collider);
        }
        RigidWorld::from_physics(&w, ground, 0)
    }

    fn from_physics(w: &PhysicsWorld, ground: bool, steps: u64) -> Result<RigidWorld, RigidError> {
        let world = postcard::to_allocvec(w).map_err(|e| RigidError::Encode(e.to_string()))?;
        Ok(RigidWorld {
            bodies: read_bodies(w),
            world,
            ground,
            steps,
        })
    }

    /// The world `substeps` rapier steps of `dt / substeps` seconds on, under `gravity`.
    pub fn step(
        &self,
        gravity: [f32; 3],
        dt: f32,
        substeps: u32,
    ) -> Result<RigidWorld, RigidError> {
        let mut w = decode_world(&self.world)?;
        let n = substeps.clamp(1, MAX_SUBSTEPS);
        w.gravity = v3(gravity);
        w.integration_parameters.dt = dt / n as f32;
        for _ in 0..n {
            w.step();
        }
        RigidWorld::from_physics(&w, self.ground, self.steps + n as u64)
    }

    /// The dynamic bodies, in the order they were made.
    pub fn bodies(&self) -> &[BodyState] {
        &self.bodies
    }

    /// Whether the ground plane y = 0 is there.
    pub fn ground(&self) -> bool {
        self.ground
    }

    /// Rapier steps run so far.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// The serialised physics world.
    pub fn world_bytes(&self) -> &[u8] {
        &self.world
    }

    /// Total energy: kinetic plus potential against `gravity` (zero at the origin).
    pub fn energy(&self, gravity: [f32; 3]) -> f64 {
        self.bodies
            .iter()
            .map(|b| {
                let pot: f64 = (0..3)
                    .map(|k| -(gravity[k] as f64) * b.position[k] as f64)
                    .sum();
                b.kinetic as f64 + b.mass as f64 * pot
            })
            .sum()
    }

    /// Wrap into a value.
    pub fn into_value(self) -> Value {
        Value::Heavy(Heavy::new(self))
    }

    /// Rebuild a state from its serialised world.
    pub fn from_bytes(world: &[u8], ground: bool, steps: u64) -> Result<RigidWorld, RigidError> {
        let w = decode_world(world)?;
        Ok(RigidWorld {
            bodies: read_bodies(&w),
            world: world.to_vec(),
            ground,
            steps,
        })
    }
}

/// The dynamic bodies of `w` in handle order, with the shape of their first collider.
fn read_bodies(w: &PhysicsWorld) -> Vec<BodyState> {
    let mut out = vec![];
    for (_, b) in w.bodies.iter() {
        if !b.is_dynamic() {
            continue;
        }
        let shape = b
            .colliders()
            .first()
            .and_then(|h| w.colliders.get(*h))
            .and_then(|c| {
                let s = c.shape();
                s.as_cuboid()
                    .map(|cu| BodyShape::Box(cu.half_extents.to_array()))
                    .or_else(|| s.as_ball().map(|ball| BodyShape::Ball(ball.radius)))
            })
            .unwrap_or(BodyShape::Ball(0.0));
        let q = b.rotation();
        out.push(BodyState {
            shape,
            position: b.translation().to_array(),
            rotation: [q.x, q.y, q.z, q.w],
            velocity: b.linvel().to_array(),
            mass: b.mass(),
            kinetic: b.kinetic_energy(),
        });
    }
    out
}

impl HeavyData for RigidWorld {
    fn type_name(&self) -> &'static str {
        RIGID
    }
    fn byte_size(&self) -> usize {
        self.world.len() + self.bodies.len() * std::mem::size_of::<BodyState>() + 16
    }
    fn hash_content(&self, h: &mut KeyHasher) {
        h.u8(self.ground as u8);
        h.u64(self.steps);
        h.bytes(&self.world);
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// The binary form of rigid-body worlds (tag 45): u8 ground, u64 steps, u64 length and the
/// serialised physics world.
#[derive(Clone, Copy, Debug, Default)]
pub struct RigidCodec;

impl HeavyCodec for RigidCodec {
    fn type_name(&self) -> &'static str {
        RIGID
    }
    fn tag(&self) -> u8 {
        45
    }
    fn encode(&self, value: &Heavy, out: &mut Vec<u8>) -> Result<(), CodecError> {
        let r = value
            .downcast::<RigidWorld>()
            .ok_or_else(|| CodecError::wrong_type(self, value))?;
        out.push(r.ground as u8);
        out.extend_from_slice(&r.steps.to_le_bytes());
        write_len(out, r.world.len());
        out.extend_from_slice(&r.world);
        Ok(())
    }
    fn decode(&self, input: &mut ByteReader<'_>) -> Result<Value, CodecError> {
        let at = input.position();
        let ground = input.take(1, "a rigid world's ground flag")?[0] != 0;
        let steps = input.u64("a rigid world's step count")?;
        let n = input.count(1, "rigid world bytes")?;
        let bytes = input.take(n, "the physics world")?;
        RigidWorld::from_bytes(bytes, ground, steps)
            .map(RigidWorld::into_value)
            .map_err(|e| CodecError::invalid(at, e.to_string()))
    }
}
