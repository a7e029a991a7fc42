//! # kiln-std
//!
//! Kiln's standard node library, built on `kiln-core`: constants, arithmetic and math on
//! floats, ints and vectors, comparisons and logic, a lazy `switch`, clock inputs, named graph
//! inputs and outputs, the latch of recurrent graphs, and nodes that catch, test and raise
//! failures (`error.*`), and rectangles (`rect.*`). Images (`kiln-image`) and meshes (`kiln-mesh`) are domains of their
//! own.
//!
//! [`registry`] returns a registry holding every op of this crate.
#![deny(missing_docs)]

// The ops: values, lists, logic, rectangles, the clock, the graph's own inputs and outputs.
pub mod clock;
pub mod errors;
pub mod graph_io;
pub mod lists;
pub mod logic;
pub mod math;
pub mod rects;

// Graphs Kiln ships, and what the ops share.
pub mod library;

use kiln_core::registry::{Registry, RegistryError};

/// Register every standard op into `reg`.
pub fn register_all(reg: &mut Registry) -> Result<(), RegistryError> {
    kiln_core::recurrence::register(reg)?;
    graph_io::register(reg)?;
    clock::register(reg)?;
    math::register(reg)?;
    logic::register(reg)?;
    errors::register(reg)?;
    lists::register(reg)?;
    rects::register(reg)?;
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
