//! Graphs used as nodes: finding what each call (`"op": "@name"`) calls and building the
//! [`Document`] the plan writes out.
//!
//! `@name` is looked up, in order:
//! 1. among the graphs defined inline (`graphs`) in the graph holding the call, then in the
//!    graphs enclosing it, up to its file;
//! 2. as the file `name.json` in the folder of the file holding the call (`@walls/brick` is
//!    `walls/brick.json`);
//! 3. as `name.json` in each folder of the [`LibraryPath`] (`--lib DIR`, then `KILN_PATH`);
//! 4. among the graphs `kiln-std` ships ([`kiln_std::library`]).
//!
//! Names are made of graph names joined by `/`, so a lookup never leaves its folders. A graph
//! that calls itself, directly or through others, is refused with the path of calls. Each
//! asset's digest covers its file's bytes and the digests of what it calls, so editing any file
//! changes the digest of every graph that reaches it.

mod error;
mod resolve;

pub use error::AssetError;
pub use resolve::{DocumentFile, document_of, read_document, text_key};

use std::path::PathBuf;

/// The folders searched for called graphs after the calling file's own.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LibraryPath {
    /// Folders, in search order.
    pub dirs: Vec<PathBuf>,
}

/// The environment variable holding library folders (separated as `PATH` is).
pub const KILN_PATH: &str = "KILN_PATH";

impl LibraryPath {
    /// `libs` (from `--lib`), then the folders of `KILN_PATH`.
    pub fn with_env(libs: &[PathBuf]) -> LibraryPath {
        let mut dirs = libs.to_vec();
        if let Some(p) = std::env::var_os(KILN_PATH) {
            dirs.extend(std::env::split_paths(&p).filter(|d| !d.as_os_str().is_empty()));
        }
        LibraryPath { dirs }
    }
}
