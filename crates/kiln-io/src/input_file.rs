//! Reading a file a user names as input (a graph file, a params file) without blocking on
//! it or reading it without bound: only a regular file (or a link to one) is opened, never a
//! FIFO or a device, and a file larger than a limit is refused from its size before it is
//! read ([`MAX_INPUT_BYTES`] for graph files).
//!
//! ```
//! use kiln_io::input_file::{InputFileError, read_input_file};
//!
//! let dir = tempfile::tempdir().unwrap();
//! let path = dir.path().join("g.json");
//! std::fs::write(&path, "{}").unwrap();
//! assert_eq!(read_input_file(&path, 16).unwrap(), b"{}");
//! let e = read_input_file(&path, 1).unwrap_err();
//! assert!(matches!(e, InputFileError::TooLarge { size: 2, limit: 1, .. }));
//! let e = read_input_file(dir.path(), 16).unwrap_err();
//! assert!(e.to_string().contains("it is a folder"), "{e}");
//! ```

use crate::entry_file::kind_of;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The largest graph file [`read_graph`](crate::read_graph) reads: 256 MiB.
pub const MAX_INPUT_BYTES: u64 = 256 << 20;

/// Why an input file could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum InputFileError {
    /// Something other than a regular file is at the path.
    #[error(
        "`{}` is not a regular file (it is {kind}): kiln reads only regular files as input",
        path.display()
    )]
    NotAFile {
        /// The path.
        path: PathBuf,
        /// What is there ("a FIFO", "a device", "a folder").
        kind: &'static str,
    },
    /// The file is larger than the limit.
    #[error(
        "`{}` is {size} bytes, more than the limit of {limit} bytes ({} MiB) for an input file",
        path.display(),
        limit >> 20
    )]
    TooLarge {
        /// The path.
        path: PathBuf,
        /// Its size (at least: a file that grew while read is not read further).
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// Reading failed.
    #[error("cannot read `{}`: {source}", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
}

/// The bytes of the file at `path`, if it is a regular file (links followed) of at most
/// `limit` bytes; never more than `limit + 1` bytes are read.
pub fn read_input_file(path: &Path, limit: u64) -> Result<Vec<u8>, InputFileError> {
    let io = |source| InputFileError::Io {
        path: path.to_path_buf(),
        source,
    };
    let not_a_file = |kind| InputFileError::NotAFile {
        path: path.to_path_buf(),
        kind,
    };
    let too_large = |size| InputFileError::TooLarge {
        path: path.to_path_buf(),
        size,
        limit,
    };
    let checked = std::fs::metadata(path).map_err(io)?;
    if !checked.file_type().is_file() {
        return Err(not_a_file(kind_of(checked.file_type())));
    }
    if checked.len() > limit {
        return Err(too_large(checked.len()));
    }
    let file = std::fs::File::open(path).map_err(io)?;
    let opened = file.metadata().map_err(io)?;
    if !opened.file_type().is_file() {
        return Err(not_a_file(kind_of(opened.file_type())));
    }
    let mut bytes = Vec::new();
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > limit {
        return Err(too_large(bytes.len() as u64));
    }
    Ok(bytes)
}
