//! # kiln-std
//!
//! Kiln's standard node library, built on `kiln-core`: constants, arithmetic and math on
//! floats, ints and vectors, comparisons and logic, a lazy `switch`, clock inputs, named graph
//! inputs and outputs, the latch of recurrent graphs, the image nodes (coherent noise, colour
//! ramps, per-pixel maths), and nodes that catch, test and raise failures (`error.*`). Meshes
//! are a domain of their own (`kiln-mesh`).
//!
//! [`registry`] returns a registry holding every op of this crate, and the binary codecs of its
//! heavy type ([`image::ImageCodec`]).
#![deny(missing_docs)]

pub mod blur;
pub mod errors;
pub mod graph_io;
pub mod image;
pub mod image_ops;
pub mod library;
pub mod logic;
pub mod math;
pub mod noise;
pub mod ramp;
pub mod shapes;
pub(crate) mod util;

use kiln_core::registry::{Registry, RegistryError};

/// Register every standard op, and the codec of images, into `reg`.
pub fn register_all(reg: &mut Registry) -> Result<(), RegistryError> {
    kiln_core::recurrence::register(reg)?;
    kiln_core::lower::register(reg)?;
    kiln_core::solver::register(reg)?;
    kiln_core::anim::register(reg)?;
    graph_io::register(reg)?;
    math::register(reg)?;
    logic::register(reg)?;
    noise::register(reg)?;
    ramp::register(reg)?;
    image_ops::register(reg)?;
    shapes::register(reg)?;
    blur::register(reg)?;
    reg.register(graph_io::GraphInput::without_default(
        "input.image",
        "A named graph input of an image (a graph used as a node takes one from its call).",
        image::IMAGE_TYPE,
    ))?;
    errors::register(reg)?;
    reg.register_codec(image::ImageCodec)?;
    Ok(())
}

/// A registry with every standard op and codec.
pub fn registry() -> Registry {
    let mut reg = Registry::new();
    // The standard ids are distinct by construction (a unit test checks it).
    if let Err(e) = register_all(&mut reg) {
        unreachable!("standard ops collide: {e}");
    }
    reg
}

#[cfg(test)]
mod tests {
    #[test]
    fn standard_ids_are_distinct_and_documented() {
        let mut reg = kiln_core::registry::Registry::new();
        super::register_all(&mut reg).expect("no duplicate ids");
        assert!(reg.len() > 20);
        for op in reg.iter() {
            let s = op.spec();
            assert!(!s.doc.is_empty(), "{} has no doc", s.id);
            for p in &s.inputs {
                assert!(!p.doc.is_empty(), "{}.{} has no doc", s.id, p.name);
            }
        }
        // Registering twice is an error.
        assert!(super::register_all(&mut reg).is_err());
    }
}
