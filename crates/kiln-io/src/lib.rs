//! # kiln-io
//!
//! Files for Kiln:
//!
//! * [`graph_file`]: the graph file format (versioned JSON) — [`load_graph`], [`read_graph`],
//!   [`save_graph`], with errors as [`LoadError`];
//! * [`input_file`]: input files read safely (regular files only, size-limited);
//! * [`values`]: result values as files (PNG for images, JSON for plain values), written
//!   atomically, and values typed on the command line;
//! * [`snapshot`]: the state of a recurrent run (each latch's value) as a versioned JSON
//!   file, for plain values;
//! * [`wav`]: audio as WAV files (32-bit float, 16- and 24-bit PCM), written atomically, or
//!   block by block into a temporary file renamed into place on commit;
//! * [`image_files`]: images as PNG (8 and 16 bits) and OpenEXR (half and float) files,
//!   and PNG, JPEG and OpenEXR files read into images, in stated colour spaces;
//! * [`preview`]: small previews of values for an editor (PNG thumbnails, a line of text);
//! * [`dot`]: Graphviz export;
//! * [`frame`]: a frame's files written as a group ([`commit_frame`]): all land, or none;
//! * [`leftovers`]: the temporary files of processes that died while writing, found by the
//!   pid in their names and removed ([`remove_dead_leftovers`]);
//! * [`render_manifest`] and [`render_state`]: which ticks of a tick render are whole in its
//!   output folder, and the latch state a resumed render continues from;
//! * [`bake`](mod@bake): baked graphs — inputs frozen, pure cones folded into constants,
//!   heavy values in a blob folder beside the graph file ([`bake()`], [`write_baked`]);
//! * [`blob`]: values stored by content beside a graph file (the blob folder of a baked
//!   graph), and the references a graph file makes to them;
//! * [`cache`]: the persistent result cache ([`DiskCache`]), a directory of checksummed
//!   entry files under a [`Store`](kiln_core::cache::Store);
//! * [`fuzzing`]: the entry points of the fuzz targets, which `cargo test` feeds the kept
//!   corpus too;
//! * [`value_codec`]: the binary form of values in cache entries and blobs ([`encode_value`],
//!   [`decode_value`]), heavy values through the codecs their crates register.
//!
//! ```
//! use kiln_io::graph_file::{load_graph, save_graph};
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

pub mod animation;
pub mod assets;
pub mod bake;
pub mod blob;
pub mod cache;
mod convert;
pub mod dot;
mod entry_file;
mod files;
pub mod frame;
pub mod fuzzing;
pub mod graph_file;
pub mod image_files;
pub mod input_file;
mod json;
pub mod leftovers;
pub mod mesh_files;
pub mod preview;
pub mod render_manifest;
pub mod render_state;
pub mod snapshot;
pub mod trace_file;
pub mod value_codec;
pub mod values;
pub mod wav;

pub use bake::{BakeError, BakeOptions, BakeReport, Baked, WriteReport, bake, write_baked};
pub use cache::{CacheError, DiskCache, DiskStats};
pub use dot::to_dot;
pub use files::{NotARegularFile, check_destination};
pub use frame::{FrameError, commit_frame};
pub use graph_file::{
    GraphFile, GraphMeta, LoadError, load_graph, load_graph_bytes, load_graph_in, read_graph,
    save_graph, save_graph_with_meta, write_graph,
};
pub use leftovers::remove_dead_leftovers;
pub use snapshot::{SnapshotError, parse_snapshot, read_snapshot, snapshot_json, write_snapshot};
pub use value_codec::{decode_value, encode_value};
pub use values::{
    WriteError, encode_output, encode_output_files, encode_output_in, parse_cli_value,
    write_atomic, write_output,
};
pub use wav::{
    StagedFile, WavData, WavError, WavFormat, WavStream, encode_wav, read_wav, write_wav,
    write_wav_mono,
};
