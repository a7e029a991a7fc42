//! # kiln-io
//!
//! Files of values for Kiln (graph files and documents are `kiln-doc`'s, above):
//!
//! * [`json`] and [`convert`]: the JSON model of value text (a parser that keeps key order
//!   and number forms, the house-style printer) and values read from it and written to it by
//!   their declared types, shared by graph files, snapshots and `--set` values; why such text
//!   does not load is a [`LoadError`] ([`load_error`]);
//! * [`input_file`]: input files read safely (regular files only, size-limited);
//! * [`values`]: result values as files (PNG for images, JSON for plain values), written
//!   atomically, and values typed on the command line;
//! * [`snapshot`]: the state of a recurrent run (each latch's value) as a versioned JSON
//!   file, for plain values;
//! * [`wav`]: audio as WAV files (32-bit float, 16- and 24-bit PCM), written atomically, or
//!   block by block into a temporary file renamed into place on commit;
//! * [`image_files`]: images as PNG (8 and 16 bits) and OpenEXR (half and float) files,
//!   and PNG, JPEG and OpenEXR files read into images, in stated colour spaces;
//! * [`mesh_files`]: meshes as glTF, OBJ, PLY and STL files;
//! * [`preview`]: small previews of values for an editor (PNG thumbnails, a line of text);
//! * [`frame`]: a frame's files written as a group ([`commit_frame`]): all land, or none;
//! * [`leftovers`]: the temporary files of processes that died while writing, found by the
//!   pid in their names and removed ([`remove_dead_leftovers`]);
//! * [`render_manifest`] and [`render_state`]: which ticks of a tick render are whole in its
//!   output folder, and the latch state a resumed render continues from;
//! * [`blob`]: values stored by content beside a graph file (the blob folder of a baked
//!   graph), and the references a graph file makes to them;
//! * [`cache`]: the persistent result cache ([`DiskCache`]), a directory of checksummed
//!   entry files under a [`Store`](kiln_core::cache::Store); [`entry_file`] reads and writes
//!   one entry;
//! * [`fuzzing`]: the entry points of the fuzz targets, which `cargo test` feeds the kept
//!   corpus too;
//! * [`value_codec`]: the binary form of values in cache entries and blobs ([`encode_value`],
//!   [`decode_value`]), heavy values through the codecs their crates register;
//! * [`animation`]: animated outputs (GIF, APNG).
#![deny(missing_docs)]

// Values as text and bytes.
pub mod convert;
pub mod json;
pub mod load_error;
pub mod value_codec;
pub mod values;

// Files of one kind: images, meshes, sound, animations, snapshots.
pub mod animation;
pub mod image_files;
pub mod input_file;
pub mod mesh_files;
pub mod preview;
pub mod snapshot;
pub mod wav;

// Writing safely: atomic files, frames as a group, leftovers of killed runs.
mod files;
pub mod frame;
pub mod leftovers;
pub mod render_manifest;
pub mod render_state;

// The cache directory and blobs.
pub mod blob;
pub mod cache;
pub mod entry_file;

// Fuzz targets' entry points.
pub mod fuzzing;

pub use cache::{CacheError, DiskCache, DiskStats};
pub use files::{NotARegularFile, check_destination};
pub use frame::{FrameError, commit_frame};
pub use leftovers::remove_dead_leftovers;
pub use load_error::{GRAPH_FILE_VERSION, LoadError};
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
