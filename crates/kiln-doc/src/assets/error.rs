//! Why a called graph could not be found or read.

use crate::graph_file::LoadError;

/// A failure to resolve the graphs a document calls.
#[derive(Debug, thiserror::Error)]
pub enum AssetError {
    /// A file could not be loaded.
    #[error("{path}: {source}")]
    Load {
        /// The file (or `file#graphs.name` for an inline graph).
        path: String,
        /// Why.
        source: LoadError,
    },
    /// No graph has the name a call uses.
    #[error("{from}: node `{node}` calls `@{name}`, which is not a graph defined in the file, a file {name}.json beside it, on the library path or in kiln-std (searched: {})", searched.join(", "))]
    NotFound {
        /// Where the call is.
        from: String,
        /// The calling node.
        node: String,
        /// The name.
        name: String,
        /// The places looked at.
        searched: Vec<String>,
    },
    /// A call's name is not made of graph names joined by `/`.
    #[error(
        "{from}: node `{node}` calls `@{name}`, which is not a graph name (names are letters, digits, `_` and `-`, joined by `/`)"
    )]
    BadName {
        /// Where the call is.
        from: String,
        /// The calling node.
        node: String,
        /// The name.
        name: String,
    },
    /// Graphs call each other in a loop.
    #[error("graphs call each other in a loop: {}", path.join(" -> "))]
    Cycle {
        /// The names along the loop, the first repeated at the end.
        path: Vec<String>,
    },
}
