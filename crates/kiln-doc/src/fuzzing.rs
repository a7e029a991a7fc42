//! The entry point of the `graph_file` fuzz target (the `fuzz/` crate), kept here so that a
//! normal `cargo test` feeds it the kept corpus (`fuzz/corpus/graph_file/`). It takes any
//! bytes and must neither panic nor hang; a file that loads must save to a file that loads.
//! The other targets are `kiln_io::fuzzing`'s.

use kiln_core::plan::Plan;
use kiln_core::registry::Registry;
use kiln_core::validate::{validate, validate_at_rate};

/// A graph file: loading, validation (with and without a sample rate), planning, and a
/// saved form that loads again.
pub fn graph_file(bytes: &[u8], registry: &Registry) {
    let Ok(file) = crate::load_graph_bytes(bytes, registry) else {
        return;
    };
    let _ = validate(&file.graph, registry);
    let _ = validate_at_rate(&file.graph, registry, 48_000.0);
    let _ = Plan::build(&file.graph, registry);
    let text = crate::save_graph(&file.graph, registry);
    if let Err(e) = crate::load_graph(&text, registry) {
        panic!("a loaded graph saved to a file that does not load: {e}\n{text}");
    }
}

/// The graph `bytes` stand for in the `evaluate` target ([`kiln_io::fuzzing::evaluate`]), as
/// a graph file, and the outputs it requests: to see what a finding of the fuzzer is.
pub fn generated_graph_file(bytes: &[u8], registry: &Registry) -> Option<(String, Vec<String>)> {
    let (graph, outputs) = kiln_io::fuzzing::generated_graph(bytes, registry)?;
    Some((crate::save_graph(&graph, registry), outputs))
}
