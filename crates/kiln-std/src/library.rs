//! The graphs `kiln-std` ships, callable from any graph as `@name` (`@std/remap`): small
//! subgraphs kept as files in `crates/kiln-std/graphs/`, built into the library.

/// Every shipped graph: `(name, file text)`.
pub const GRAPHS: &[(&str, &str)] = &[
    ("std/remap", include_str!("../graphs/std/remap.json")),
    (
        "std/smoothstep",
        include_str!("../graphs/std/smoothstep.json"),
    ),
    ("std/contrast", include_str!("../graphs/std/contrast.json")),
];

/// The text of the shipped graph `name`, if there is one.
pub fn graph(name: &str) -> Option<&'static str> {
    GRAPHS.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}
