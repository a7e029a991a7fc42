//! What can go wrong in the studio.

use std::path::PathBuf;

/// Why the studio could not start, or an edit could not be made.
#[derive(Debug, thiserror::Error)]
pub enum StudioError {
    /// The graph file could not be read.
    #[error("cannot read {}: {message}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// The graph file is not a graph file this build loads.
    #[error("{}: {message}", path.display())]
    Load {
        /// The file.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// The edit does not apply to the file.
    #[error("{0}")]
    Edit(#[from] kiln_doc::edit::FileEditError),
    /// The edited file would not load (it is left as it was).
    #[error("the edit was refused: the file would not load: {0}")]
    Refused(String),
    /// Writing the graph file failed.
    #[error("{0}")]
    Write(#[from] kiln_io::WriteError),
    /// The server could not start.
    #[error("cannot serve on {addr}: {message}")]
    Serve {
        /// The address asked for.
        addr: String,
        /// Why.
        message: String,
    },
    /// Nothing to undo or redo.
    #[error("nothing to {0}")]
    NoHistory(&'static str),
}
