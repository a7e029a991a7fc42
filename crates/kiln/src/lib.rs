//! # kiln
//!
//! Kiln's one way in. A [`Project`] is a graph file opened with every graph it calls; it
//! lists its interface ([`Project::inputs`], [`Project::outputs`]), takes input values or
//! files (decoded once), plans once and keeps the plan while nothing it stands on changes,
//! cooks a request under any evaluator and policy ([`Project::cook`], with progress and
//! cancellation), and writes outputs as one atomic group in the formats asked
//! ([`Project::write`]). The `kiln` command and Kiln Studio are clients of it.
//!
//! ```
//! # let dir = tempfile::tempdir()?;
//! # let out = dir.path();
//! # let wall = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/wall.json");
//! use kiln::{CookOptions, OutputFiles, Project};
//!
//! let mut project = Project::open(wall)?;          // examples/wall.json and the graphs it calls
//! for input in project.inputs() {
//!     println!("{}: {}", input.name, input.ty);
//! }
//! project.set("size", 128)?;                        // a graph input
//! let cooked = project.cook(&CookOptions::default())?;
//! let written = project.write(&cooked, out, &OutputFiles::default())?;
//! assert!(written.files.iter().any(|f| f.ends_with("wall.png")));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The vocabulary of graphs, values and evaluators is re-exported in [`prelude`]; the
//! layers beneath are reachable as [`core`], [`io`] and the domain crates.
#![deny(missing_docs)]

/// The README, included so that `cargo test` compiles and runs its Rust examples (the
/// library example opens `examples/wall.json` through [`Project`]).
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;

// The project: opening, interface, inputs, lowering.
mod node_port;
mod project;
pub use project::{Clock, Lowering, OpenOptions, Project};

// Cooking and writing.
mod animations;
mod cook;
pub mod live;
mod output_files;
mod render;
mod stream;
pub use animations::Animations;
pub use cook::{CookOptions, Cooked, is_latch_error};
pub use live::{Change, DEFAULT_FPS, Live, LiveCook, LiveCooked};
pub use output_files::{Encoded, OutputFiles, Written};
pub use render::{Render, RenderOptions, frame_stem, tick_width};
pub use stream::{AudioStream, StreamOptions};

// Sweeps: one graph cooked per combination of knob values.
pub mod farm;
mod output_keys;
pub mod sweep;
mod sweep_run;
pub use sweep::{NameTemplate, Sweep, SweepError, SweepItem};
pub use sweep_run::{ItemDone, SweepReport, SweepRun, manifest as sweep_manifest};
pub mod trace_file;

// What the project offers and takes.
mod colours;
mod input_value;
mod interface;
pub use colours::OutColours;
pub use input_value::{input_colour, input_file, input_value};
pub use interface::{InputInfo, OutputInfo};

// How cooks run.
mod cache_dir;
mod evaluator_kind;
pub use cache_dir::CacheDir;
pub use evaluator_kind::{EvaluatorKind, memo_budget, parallel_policy};

// Failures, and the ops.
mod error;
mod registry;
pub use error::ProjectError;
pub use registry::{registry, try_registry};

/// The engine (`kiln-core`).
pub use kiln_core as core;
/// Documents and graph files (`kiln-doc`).
pub use kiln_doc as doc;
/// Files, caches and atomic writes (`kiln-io`).
pub use kiln_io as io;
/// Colour spaces of image files.
pub use kiln_io::image_files::{ColorSpace, ImageFormat};
/// Mesh file formats.
pub use kiln_io::mesh_files::MeshFormat;
/// Lowering: documents written out into flat graphs (`kiln-lower`).
pub use kiln_lower as lower;

/// The vocabulary of people who open, cook and script graphs: projects, values, requests,
/// evaluators, ops.
pub mod prelude {
    pub use crate::{
        CookOptions, Cooked, EvaluatorKind, OutputFiles, Project, ProjectError, registry,
    };
    pub use kiln_core::prelude::*;
}
