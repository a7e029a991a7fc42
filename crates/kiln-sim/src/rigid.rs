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
    /// The serialised world decoded, but is not a world Kiln makes: a handle or index that
    /// refers to no element, a body without its collider, settings or numbers out of range,
    /// or a world whose trial step panicked.
    #[error("the physics world is damaged: {0}")]
    Damaged(String),
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

/// The world of `bytes` read from outside (a state file, a cache entry, a snapshot): decoded,
/// then checked ([`check_world`]), then a copy stepped once on trial ([`trial_step`]), so a
/// damaged world is refused here and never panics a later step.
fn checked_world(bytes: &[u8]) -> Result<PhysicsWorld, RigidError> {
    let w = decode_world(bytes)?;
    check_world(&w)?;
    check_tree(bytes)?;
    trial_step(bytes)?;
    Ok(w)
}

/// Whether the world's multibody set is the empty one, told from its encoding: iterating a
/// damaged set (a link naming a multibody that is not there) panics inside rapier, and it is
/// not reached by the trial step's `catch_unwind`.
fn no_multibodies(w: &PhysicsWorld) -> bool {
    let empty = rapier3d::prelude::MultibodyJointSet::new();
    match (
        postcard::to_allocvec(&w.multibody_joints),
        postcard::to_allocvec(&empty),
    ) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// The message of a caught panic.
fn panic_message(panic: &(dyn Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".into())
}

/// A node of parry's BVH as postcard writes it: `mins`, `children` (a node index, or a
/// leaf's id), `maxs`, `data` (the leaf count in the low 30 bits, change flags above).
type TreeNode = (Vector, u32, Vector, u32);

/// The part of a serialised world before and through the broad phase's tree, as postcard
/// writes it (field after field): gravity, integration settings, islands, then the broad
/// phase, whose first field is parry's `Bvh`: its nodes (pairs of nodes), the parent of each
/// (`node << 1 | right`), and the map of leaves to their places (`n` and a vector of
/// options).
type TreePrefix = (
    Vector,
    rapier3d::prelude::IntegrationParameters,
    rapier3d::prelude::IslandManager,
    Vec<(TreeNode, TreeNode)>,
    Vec<usize>,
    (usize, Vec<Option<usize>>),
);

/// The broad phase's tree (parry's BVH) of the serialised world is a tree: every child index
/// inside the node array, no node reached twice (a loop would make the first step recurse
/// without end, past any stack: no panic to catch), each child's parent and leaf count as its
/// node says, each leaf in the leaf map. Rapier keeps the tree private, so it is read from
/// the bytes ([`TreePrefix`]) and walked here without recursion.
fn check_tree(bytes: &[u8]) -> Result<(), RigidError> {
    let (_, _, _, nodes, parents, (_, leaves)): TreePrefix =
        postcard::from_bytes(bytes).map_err(|e| RigidError::Decode(e.to_string()))?;
    let bad = |what: &str| Err(RigidError::Damaged(format!("its broad phase {what}")));
    let count = |n: &TreeNode| n.3 & 0x3fff_ffff;
    if leaves.iter().flatten().any(|&at| at >> 1 >= nodes.len()) {
        return bad("has a leaf placed outside its tree");
    }
    let Some(root) = nodes.first() else {
        return Ok(());
    };
    if parents.len() != nodes.len() {
        return bad("has a parent list of another length than its nodes");
    }
    if count(&root.1) == 0 {
        // One leaf: the root's left.
        let leaf = leaves.get(root.0.1 as usize).is_some_and(Option::is_some);
        return if count(&root.0) == 1 && leaf {
            Ok(())
        } else {
            bad("has an empty root")
        };
    }
    let mut seen = vec![false; nodes.len()];
    seen[0] = true;
    let mut stack = vec![0usize];
    while let Some(at) = stack.pop() {
        let (left, right) = &nodes[at];
        for (side, child) in [(0, left), (1, right)] {
            let children = child.1 as usize;
            match count(child) {
                0 => return bad("has an empty node"),
                1 => {
                    if !leaves.get(children).is_some_and(Option::is_some) {
                        return bad("has a leaf that is not in its leaf map");
                    }
                }
                n => {
                    let Some(next) = nodes.get(children) else {
                        return bad("has a child outside its nodes");
                    };
                    if std::mem::replace(&mut seen[children], true) {
                        return bad("has a node reached twice (a loop)");
                    }
                    if parents[children] != (at << 1 | side) {
                        return bad("has a node whose parent is another");
                    }
                    if count(&next.0).checked_add(count(&next.1)) != Some(n) {
                        return bad("has a node whose leaf count is not its children's");
                    }
                    stack.push(children);
                }
            }
        }
    }
    Ok(())
}

/// The invariants of a world Kiln makes ([`RigidWorld::new`], then steps): at most
/// [`MAX_BODIES`] dynamic bodies and the ground; each body with exactly one collider that
/// exists and names the body as its parent, and every collider the one of an existing body;
/// no joints; rapier's default integration settings (but the step length, which each step
/// sets); finite gravity, poses and velocities; shapes Kiln makes (boxes and balls of sizes
/// [`RigidWorld::new`] allows).
fn check_world(w: &PhysicsWorld) -> Result<(), RigidError> {
    let bad = |what: String| Err(RigidError::Damaged(what));
    if w.bodies.len() > MAX_BODIES + 1 {
        return bad(format!(
            "{} bodies, over the limit of {MAX_BODIES} and the ground",
            w.bodies.len()
        ));
    }
    if w.colliders.len() != w.bodies.len() {
        return bad(format!(
            "{} colliders for {} bodies (one each)",
            w.colliders.len(),
            w.bodies.len()
        ));
    }
    if !w.impulse_joints.is_empty() || !no_multibodies(w) {
        return bad("it holds joints".into());
    }
    let mut params = w.integration_parameters;
    let defaults = rapier3d::prelude::IntegrationParameters::default();
    params.dt = defaults.dt;
    if params != defaults {
        return bad("its integration settings are not rapier's defaults".into());
    }
    let finite = |v: Vector| v.is_finite() && v.abs().max_element() < 1e9;
    if !finite(w.gravity) {
        return bad("its gravity is not finite".into());
    }
    for (h, b) in w.bodies.iter() {
        let (index, _) = h.into_raw_parts();
        let &[c] = b.colliders() else {
            return bad(format!(
                "body {index} has {} colliders, not one",
                b.colliders().len()
            ));
        };
        let Some(collider) = w.colliders.get(c) else {
            return bad(format!("body {index} names a collider that does not exist"));
        };
        if collider.parent() != Some(h) {
            return bad(format!("the collider of body {index} names another parent"));
        }
        let moving = [b.linvel(), b.angvel(), b.translation()];
        if !moving.into_iter().all(finite) || !b.rotation().is_finite() {
            return bad(format!("body {index} has a pose or velocity out of range"));
        }
        if !(b.mass().is_finite() && b.mass() >= 0.0) {
            return bad(format!("body {index} has a mass out of range"));
        }
        let shape = collider.shape();
        let size_ok = |x: f32| x.is_finite() && x > 0.0 && x <= 1e6;
        let shape_ok = match (shape.as_cuboid(), shape.as_ball()) {
            (Some(cu), None) => cu.half_extents.to_array().into_iter().all(size_ok),
            (None, Some(ball)) => size_ok(ball.radius),
            _ => false,
        };
        if !shape_ok {
            return bad(format!("body {index} has a shape Kiln does not make"));
        }
    }
    for (c, collider) in w.colliders.iter() {
        let parent = collider.parent().and_then(|p| w.bodies.get(p));
        if !parent.is_some_and(|p| p.colliders() == [c]) {
            let (index, _) = c.into_raw_parts();
            return bad(format!("collider {index} has no body of its own"));
        }
    }
    Ok(())
}

/// A copy of the world of `bytes` stepped once (a short step, no gravity): refused when the
/// step panics. The sets' handles are checked above, but rapier's broad phase, narrow phase
/// and islands hold indices of their own with no public way to check them; a step follows
/// them all. The panic is caught here (rapier's own message in the error) instead of in a
/// later step of the render.
fn trial_step(bytes: &[u8]) -> Result<(), RigidError> {
    // A gentle step (no gravity, a short one), then a tick as `sim.rigid.step` makes it by
    // default (gravity, 1/30 s in 4 substeps): a damaged contact graph can pass the first
    // and panic the solver in the second (found by fuzzing).
    for (gravity, dt, steps) in [
        (Vector::ZERO, 1.0 / 600.0, 1),
        (Vector::new(0.0, -9.81, 0.0), 1.0 / 120.0, 4),
    ] {
        let mut trial = decode_world(bytes)?;
        let stepped = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
            trial.gravity = gravity;
            trial.integration_parameters.dt = dt;
            for _ in 0..steps {
                trial.step();
            }
            read_bodies(&trial)
        }));
        if let Err(panic) = stepped {
            return Err(RigidError::Damaged(format!(
                "a trial step panicked: {}",
                panic_message(panic.as_ref())
            )));
        }
    }
    Ok(())
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

    /// Rebuild a state from its serialised world, checked: a world that does not decode, or
    /// decodes to a world Kiln does not make (a handle or index to no element, a body
    /// without its collider, settings or numbers out of range, a trial step that panics), is
    /// refused as [`RigidError::Decode`] or [`RigidError::Damaged`].
    pub fn from_bytes(world: &[u8], ground: bool, steps: u64) -> Result<RigidWorld, RigidError> {
        let w = checked_world(world)?;
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
