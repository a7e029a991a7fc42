//! From file text to what the studio cooks and draws: the loaded file and its document,
//! calls resolved from the graph's folder and the library path (as `kiln watch` does).

use kiln_core::registry::Registry;
use kiln_doc::assets::{DocumentFile, LibraryPath, document_of, text_key};
use std::path::PathBuf;

/// Loads graph texts of one file.
#[derive(Clone)]
pub struct Loader {
    /// The ops.
    pub registry: Registry,
    /// The graph's folder: its calls search it first.
    pub dir: PathBuf,
    /// The folders searched next.
    pub libs: LibraryPath,
    /// How the cook opens the text as a project (the same ops and folders).
    pub open: kiln::OpenOptions,
}

impl Loader {
    /// The document of `text`, or why it does not load.
    pub fn document(&self, text: &str) -> Result<DocumentFile, String> {
        let file = kiln_doc::graph_file::load_graph_in(text, &self.registry, &self.dir)
            .map_err(|e| e.to_string())?;
        document_of(
            file,
            &self.dir,
            &self.registry,
            &self.libs,
            text_key(text.as_bytes()),
        )
        .map_err(|e| e.to_string())
    }

    /// `text` opened as a project, its calls looked up as [`Loader::document`] does.
    pub fn project(&self, text: &str) -> Result<kiln::Project, kiln::ProjectError> {
        self.open
            .clone()
            .open_text(text, &self.dir.display().to_string(), &self.dir)
    }

    /// Whether `text` loads (validation problems load: they show on their nodes).
    pub fn check(&self, text: &str) -> Result<(), String> {
        self.document(text).map(drop)
    }
}
