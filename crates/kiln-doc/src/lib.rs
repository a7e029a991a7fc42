//! # kiln-doc
//!
//! Kiln's edit model: what a person writes and edits, before anything is compiled.
//!
//! * [`document`]: a [`Document`](document::Document), a graph whose nodes may call other
//!   graphs (optionally written out by a `for`, `fold` or `step` scope), with animated values
//!   and entity flow, as plain data;
//! * [`graph_file`]: graph-file text (versioned JSON) read into graphs and documents and
//!   written back in the canonical form, constants typed once by the ports they reach;
//! * [`assets`]: a graph file read with everything it calls (inline graphs, files beside,
//!   library folders, `KILN_PATH`, the graphs `kiln-std` ships);
//! * [`edit`]: semantic edits of a graph file with undo and redo, applied to the file's own
//!   text model and written in the house style, so an editor's edit is known as an edit;
//! * [`bake`](mod@bake): baked graphs (inputs frozen, pure cones folded into constants,
//!   heavy values in a blob folder beside the file);
//! * [`dot`]: Graphviz export.
//!
//! Lowering (documents written out into the flat graphs the engine runs) is `kiln-lower`'s,
//! above this crate; files of values (images, meshes, audio, caches) are `kiln-io`'s, beneath.
//!
//! ```
//! use kiln_doc::graph_file::{load_graph, save_graph};
//!
//! let registry = kiln_image::registry();
//! let text = r#"{
//!   "kiln": 1,
//!   "inputs": {
//!     "size": {"type": "float", "default": 2.0}
//!   },
//!   "nodes": {},
//!   "outputs": {
//!     "result": "size.out"
//!   }
//! }
//! "#;
//! let file = load_graph(text, &registry).unwrap();
//! assert_eq!(file.graph.len(), 2);
//! assert!(kiln_core::validate::validate(&file.graph, &registry).is_empty());
//! assert_eq!(save_graph(&file.graph, &registry), text);
//! ```
#![deny(missing_docs)]

// The model and its text.
pub mod document;
pub mod graph_file;

// Documents with what they call.
pub mod assets;

// Changing a document.
pub mod edit;

// What is made from a document without lowering it.
pub mod bake;
pub mod dot;
pub mod ops_schema;

// The entry point of the `graph_file` fuzz target.
pub mod fuzzing;

pub use bake::{BakeError, BakeOptions, BakeReport, Baked, WriteReport, bake, write_baked};
pub use dot::to_dot;
pub use graph_file::{
    GraphFile, GraphMeta, LoadError, load_graph, load_graph_bytes, load_graph_in, read_graph,
    save_graph, save_graph_with_meta, write_graph,
};
