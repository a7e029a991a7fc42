//! # kiln-sim
//!
//! Kiln's simulation domain: a grid state heavy type ([`Grid`], a multi-channel `f32` grid
//! with a codec) and simulations, each an *init* node that makes the first state and a
//! *step* node that makes the next from the previous. A graph wires them through a latch:
//! `init.out → latch.init`, `latch.out → step.state`, `step.out → latch.signal`, and
//! `kiln render --ticks N` runs it.
//!
//! | op | what it is |
//! |----|------------|
//! | `sim.grayscott.init`, `sim.grayscott.step` | Gray–Scott reaction–diffusion ([`gray_scott`]) |
//! | `sim.life.init`, `sim.life.step` | Life-like automata in B/S notation ([`life`]) |
//! | `sim.ca1d.init`, `sim.ca1d.step` | elementary 1D automata, as a space-time diagram ([`elementary`]) |
//! | `sim.smoothlife.init`, `sim.smoothlife.step` | SmoothLife ([`smoothlife`]) |
//! | `sim.fluid.init`, `sim.fluid.step` | 2D stable fluids with dye ([`fluid`]) |
//! | `sim.particles.init`, `sim.particles.step` | particles: emit (from the emitter, or from given points along their normals), forces, collide, age and die ([`particle_step`]) |
//! | `sim.particles.splat`, `sim.particles.points` | particles drawn into an image, or listed as points ([`particle_view`]) |
//! | `sim.cloth.init`, `sim.cloth.step`, `sim.cloth.view` | mass–spring cloth with Verlet ([`cloth`]) |
//! | `sim.wfc.init`, `sim.wfc.step`, `sim.wfc.view` | wave function collapse, simple tiled model ([`wfc`]) |
//! | `sim.wfc.overlap` | wave function collapse, overlapping model, sample to image ([`wfc_overlap`]) |
//! | `sim.tree.init`, `sim.tree.step`, `sim.tree.view`, `sim.tree.lines` | space colonization ([`colonize`]) |
//! | `sim.rigid.init`, `sim.rigid.step`, `sim.rigid.points`, `sim.rigid.view` | rigid bodies through rapier ([`rigid`]) |
//! | `sim.view` | a grid's channel as a grey image |
//!
//! Steps compute rows in parallel on the current Rayon pool, each row from the previous state
//! only, so the bits do not depend on the thread count. Grid storage is recycled
//! ([`pool`]): once the previous state has no holder left, its buffer is the next step's
//! output, so a latch loop allocates no grid after its first ticks.
//!
//! This crate knows no mesh: simulations meet meshes through lists of plain values that a
//! graph wires between the domains (`sim.tree.lines` and `sim.rigid.points` out, the
//! `points` and `normals` of `sim.particles.step` in; kiln-mesh's `mesh.segments`,
//! `mesh.copy_to_poses` and `mesh.point_list` on the other side).
//!
//! ```
//! use kiln_core::prelude::*;
//! use kiln_core::recurrence::Recurrent;
//!
//! let mut g = Graph::new();
//! g.add_node("seed", "sim.life.init").unwrap();
//! g.set_param("seed", "width", Value::Int(5)).unwrap();
//! g.set_param("seed", "height", Value::Int(5)).unwrap();
//! g.set_param("seed", "pattern", Value::Str("|..O|..O|..O".into())).unwrap();
//! g.add_node("state", "latch").unwrap();
//! g.add_node("life", "sim.life.step").unwrap();
//! g.wire("seed.out", "state.init");
//! g.wire("state.out", "life.state");
//! g.wire("life.out", "state.signal");
//! let mut run = Recurrent::new(LazyEvaluator::new(kiln_sim::registry()), kiln_sim::registry());
//! let req = Request::new(["life"]);
//! let ctx = EvalContext::new();
//! let first = run.tick(&g, &req, &ctx).unwrap();
//! let second = run.tick(&g, &req, &ctx).unwrap();
//! let cells = |o: &Outputs| o.get("life").unwrap().as_heavy::<kiln_sim::Grid>().unwrap().data().to_vec();
//! // A blinker: horizontal after one generation, vertical again after two.
//! assert_eq!(cells(&first)[10..15], [0.0, 1.0, 1.0, 1.0, 0.0]);
//! assert_eq!(cells(&second)[10..15], [0.0, 0.0, 1.0, 0.0, 0.0]);
//! ```
#![deny(missing_docs)]

// What every simulation shares: grids, pools, port types, rows, randomness, views.
mod field;
pub mod grid;
mod image_bridge;
pub mod pool;
mod ports;
pub mod rng;
mod rows;
mod view;

// Cellular automata and reaction-diffusion.
pub mod elementary;
pub mod gray_scott;
pub mod life;
pub mod smoothlife;

// Particles, cloth, rigid bodies, fluids, growth.
pub mod cloth;
mod cloth_ops;
pub mod colonize;
mod colonize_ops;
pub mod fluid;
pub mod particle_pool;
pub mod particle_step;
pub mod particle_view;
pub mod particles;
pub mod rigid;
mod rigid_ops;

// Wave function collapse.
pub mod wfc;
pub mod wfc_ops;
pub mod wfc_overlap;
mod wfc_overlap_op;

pub use grid::{GRID, GRID_TYPE, Grid, GridCodec};

use kiln_core::registry::{Registry, RegistryError};

/// Register every simulation op into `reg`, with the codecs of grids ([`GridCodec`]) and
/// particle systems ([`particles::ParticlesCodec`]), cloths ([`cloth::ClothCodec`]) and
/// waves ([`wfc::WaveCodec`]), trees ([`colonize::TreeCodec`]) and rigid-body worlds
/// ([`rigid::RigidCodec`]).
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    gray_scott::register(reg)?;
    life::register(reg)?;
    elementary::register(reg)?;
    smoothlife::register(reg)?;
    fluid::register(reg)?;
    particle_step::register(reg)?;
    particle_view::register(reg)?;
    cloth_ops::register(reg)?;
    wfc_ops::register(reg)?;
    wfc_overlap_op::register(reg)?;
    colonize_ops::register(reg)?;
    view::register(reg)?;
    rigid_ops::register(reg)?;
    reg.register_codec(GridCodec)?;
    reg.register_codec(particles::ParticlesCodec)?;
    reg.register_codec(cloth::ClothCodec)?;
    reg.register_codec(wfc::WaveCodec)?;
    reg.register_codec(colonize::TreeCodec)?;
    reg.register_codec(rigid::RigidCodec)?;
    Ok(())
}

/// The standard library and the image domain ([`kiln_image::registry`]) with every
/// simulation op and codec.
pub fn registry() -> Registry {
    let mut reg = kiln_image::registry();
    if let Err(e) = register(&mut reg) {
        unreachable!("simulation ops collide with the standard library: {e}");
    }
    reg
}

#[cfg(test)]
mod tests {
    #[test]
    fn simulation_ops_are_distinct_documented_and_name_each_port_once() {
        let mut reg = kiln_std::registry();
        let before = reg.len();
        super::register(&mut reg).expect("no id taken twice");
        assert!(reg.len() > before + 20);
        for op in reg.iter().filter(|op| op.spec().id.starts_with("sim.")) {
            let s = op.spec();
            assert!(!s.doc.is_empty(), "{} has no doc", s.id);
            let mut names: Vec<&str> = s.inputs.iter().map(|p| &*p.name).collect();
            names.extend(s.params.iter().map(|p| &*p.name));
            let n = names.len();
            names.sort();
            names.dedup();
            assert_eq!(names.len(), n, "{} names a port or param twice", s.id);
            assert!(
                s.inputs.iter().all(|p| !p.doc.is_empty())
                    && s.params.iter().all(|p| !p.doc.is_empty()),
                "{}",
                s.id
            );
        }
        assert!(super::register(&mut reg).is_err());
    }
}
