//! Resolution: a table of every graph reached (the top file, files, inline graphs, kiln-std
//! graphs), discovered with a worklist, then built into assets in dependency order, with
//! no recursion over the depth of calls.

use super::{AssetError, LibraryPath};
use crate::document::{Asset, CALL_PREFIX, Call, DocDigest, Document, Interface, Scope};
use crate::graph_file::{GraphFile, is_valid_name, load_graph_in};
use kiln_core::key::{Key, KeyHasher};
use kiln_core::registry::Registry;
use kiln_io::input_file::{InputFileError, MAX_INPUT_BYTES, read_input_file};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A graph file read with everything it calls.
#[derive(Debug)]
pub struct DocumentFile {
    /// The top file as loaded (its graph still holds the calls).
    pub file: GraphFile,
    /// The document: the top graph with every call resolved.
    pub doc: Document,
    /// The document's digest (see [`DocDigest`]).
    pub digest: DocDigest,
    /// Every file read (the top file first), to watch for edits.
    pub files: Vec<PathBuf>,
}

/// Where a graph of the table comes from.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Source {
    Top,
    File(PathBuf),
    Inline(usize, String),
    Std(String),
}

struct Entry {
    name: String,
    origin: String,
    file: GraphFile,
    /// The folder its calls search first.
    dir: PathBuf,
    /// The entry whose `graphs` defined it (inline graphs), for lookups of its calls.
    parent: Option<usize>,
    text: Key,
    /// `(node id, entry called)`.
    deps: Vec<(String, usize)>,
}

/// Read the graph file at `path` and every graph it calls.
pub fn read_document(
    path: &Path,
    registry: &Registry,
    libs: &LibraryPath,
) -> Result<DocumentFile, AssetError> {
    let (file, text) = read_file(path, registry)?;
    let dir = folder(path);
    let mut d = document_of(file, &dir, registry, libs, text)?;
    d.files.insert(0, path.to_path_buf());
    Ok(d)
}

/// The document of a top file already loaded (`text` is the digest of its bytes), whose
/// calls search `dir` first.
pub fn document_of(
    file: GraphFile,
    dir: &Path,
    registry: &Registry,
    libs: &LibraryPath,
    text: Key,
) -> Result<DocumentFile, AssetError> {
    let mut t = Table {
        entries: vec![Entry {
            name: "(top)".into(),
            origin: "the graph".into(),
            file,
            dir: dir.to_path_buf(),
            parent: None,
            text,
            deps: vec![],
        }],
        index: HashMap::from([(Source::Top, 0)]),
        files: vec![],
        registry,
        libs,
    };
    t.discover()?;
    let order = t.order()?;
    let assets = t.build(&order);
    let top = t.entries.swap_remove(0);
    let doc = document(&top, &assets);
    let digest = DocDigest::whole(&doc);
    Ok(DocumentFile {
        file: top.file,
        doc,
        digest,
        files: t.files,
    })
}

/// The digest of a file's bytes.
pub fn text_key(bytes: &[u8]) -> Key {
    let mut h = KeyHasher::new();
    h.str("kiln.graph-file");
    h.bytes(bytes);
    h.finish_key()
}

fn folder(path: &Path) -> PathBuf {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

fn read_file(path: &Path, registry: &Registry) -> Result<(GraphFile, Key), AssetError> {
    let shown = path.display().to_string();
    let bytes = read_input_file(path, MAX_INPUT_BYTES).map_err(|e| AssetError::Load {
        path: shown.clone(),
        source: match e {
            InputFileError::Io { path, source } => {
                crate::graph_file::LoadError::Io { path, source }
            }
            other => crate::graph_file::LoadError::Input(other),
        },
    })?;
    let text = String::from_utf8_lossy(&bytes);
    let file =
        load_graph_in(&text, registry, &folder(path)).map_err(|source| AssetError::Load {
            path: shown,
            source,
        })?;
    Ok((file, text_key(&bytes)))
}

struct Table<'a> {
    entries: Vec<Entry>,
    index: HashMap<Source, usize>,
    files: Vec<PathBuf>,
    registry: &'a Registry,
    libs: &'a LibraryPath,
}

impl Table<'_> {
    /// Find every graph reached from the top, breadth first.
    fn discover(&mut self) -> Result<(), AssetError> {
        let mut next = 0;
        while next < self.entries.len() {
            let calls: Vec<(String, String)> = self.entries[next]
                .file
                .graph
                .nodes()
                .iter()
                .filter_map(|n| {
                    n.op.strip_prefix(CALL_PREFIX)
                        .map(|name| (n.id.to_string(), name.to_string()))
                })
                .collect();
            for (node, name) in calls {
                let dep = self.find(next, &node, &name)?;
                self.entries[next].deps.push((node, dep));
            }
            next += 1;
        }
        Ok(())
    }

    /// The entry `@name` called from entry `at` names, added to the table if new.
    fn find(&mut self, at: usize, node: &str, name: &str) -> Result<usize, AssetError> {
        let from = self.entries[at].origin.clone();
        if !name.split('/').all(is_valid_name) {
            return Err(AssetError::BadName {
                from,
                node: node.into(),
                name: name.into(),
            });
        }
        // 1. Inline graphs of this graph and those enclosing it.
        let mut scope = Some(at);
        while let Some(s) = scope {
            if let Some(def) = self.entries[s].file.structure.graphs.get(name) {
                let key = Source::Inline(s, name.to_string());
                if let Some(&i) = self.index.get(&key) {
                    return Ok(i);
                }
                let mut h = KeyHasher::new();
                h.u128(self.entries[s].text.0);
                h.str(name);
                let e = Entry {
                    name: name.to_string(),
                    origin: format!("{}#graphs.{name}", self.entries[s].origin),
                    file: def.clone(),
                    dir: self.entries[s].dir.clone(),
                    parent: Some(s),
                    text: h.finish_key(),
                    deps: vec![],
                };
                return Ok(self.add(key, e));
            }
            scope = self.entries[s].parent;
        }
        // 2. and 3. Files beside the caller, then on the library path.
        let rel = format!("{name}.json");
        let mut searched = vec![];
        let mut dirs = vec![self.entries[at].dir.clone()];
        dirs.extend(self.libs.dirs.iter().cloned());
        for d in dirs {
            let p = d.join(&rel);
            searched.push(p.display().to_string());
            if p.is_file() {
                let key = Source::File(p.canonicalize().unwrap_or_else(|_| p.clone()));
                if let Some(&i) = self.index.get(&key) {
                    return Ok(i);
                }
                let (file, text) = read_file(&p, self.registry)?;
                self.files.push(p.clone());
                let e = Entry {
                    name: name.to_string(),
                    origin: p.display().to_string(),
                    file,
                    dir: folder(&p),
                    parent: None,
                    text,
                    deps: vec![],
                };
                return Ok(self.add(key, e));
            }
        }
        // 4. The graphs kiln-std ships.
        if let Some(text) = kiln_std::library::graph(name) {
            let key = Source::Std(name.to_string());
            if let Some(&i) = self.index.get(&key) {
                return Ok(i);
            }
            let origin = format!("kiln-std:{name}");
            let file = crate::graph_file::load_graph(text, self.registry).map_err(|source| {
                AssetError::Load {
                    path: origin.clone(),
                    source,
                }
            })?;
            let e = Entry {
                name: name.to_string(),
                origin,
                file,
                dir: PathBuf::from("."),
                parent: None,
                text: text_key(text.as_bytes()),
                deps: vec![],
            };
            return Ok(self.add(key, e));
        }
        searched.push("kiln-std".into());
        Err(AssetError::NotFound {
            from,
            node: node.into(),
            name: name.into(),
            searched,
        })
    }

    fn add(&mut self, key: Source, e: Entry) -> usize {
        let i = self.entries.len();
        self.entries.push(e);
        self.index.insert(key, i);
        i
    }

    /// The entries in an order where every graph comes after those it calls; a loop of
    /// calls is an error naming it.
    fn order(&self) -> Result<Vec<usize>, AssetError> {
        // 0 = unseen, 1 = on the path, 2 = done.
        let mut state = vec![0u8; self.entries.len()];
        let mut order = Vec::with_capacity(self.entries.len());
        let mut stack: Vec<(usize, usize)> = vec![(0, 0)];
        state[0] = 1;
        while let Some(&mut (e, ref mut next)) = stack.last_mut() {
            if let Some(&(_, d)) = self.entries[e].deps.get(*next) {
                *next += 1;
                match state[d] {
                    0 => {
                        state[d] = 1;
                        stack.push((d, 0));
                    }
                    1 => {
                        let start = stack.iter().position(|&(s, _)| s == d).unwrap_or(0);
                        let mut path: Vec<String> = stack[start..]
                            .iter()
                            .map(|&(s, _)| self.entries[s].name.clone())
                            .collect();
                        path.push(self.entries[d].name.clone());
                        return Err(AssetError::Cycle { path });
                    }
                    _ => {}
                }
            } else {
                state[e] = 2;
                order.push(e);
                stack.pop();
            }
        }
        Ok(order)
    }

    /// Build every asset (all but the top), callees first.
    fn build(&self, order: &[usize]) -> Vec<Option<Arc<Asset>>> {
        let mut assets: Vec<Option<Arc<Asset>>> = vec![None; self.entries.len()];
        for &i in order {
            if i == 0 {
                continue;
            }
            let e = &self.entries[i];
            let doc = document(e, &assets);
            let mut h = KeyHasher::new();
            if e.parent.is_some() {
                // A graph defined inline is keyed by what it holds, not by the whole file
                // around it: an edit elsewhere in the file leaves it (and its calls' plans)
                // as they were.
                h.str("kiln.inline");
                h.u128(DocDigest::whole(&doc).key().0);
            } else {
                h.u128(e.text.0);
            }
            for (node, d) in &e.deps {
                h.str(node);
                if let Some(a) = &assets[*d] {
                    h.u128(a.digest.0);
                }
            }
            let mut interface = Interface::of(&doc.graph, self.registry);
            for p in &mut interface.inputs {
                p.doc = e.file.meta.input_docs.get(&p.name).cloned();
            }
            assets[i] = Some(Arc::new(Asset {
                name: e.name.clone(),
                origin: e.origin.clone(),
                digest: h.finish_key(),
                description: e.file.meta.description.clone(),
                doc,
                interface,
            }));
        }
        assets
    }
}

/// The document of entry `e`, its calls resolved to built assets.
fn document(e: &Entry, assets: &[Option<Arc<Asset>>]) -> Document {
    let mut doc = Document::from_graph(e.file.graph.clone());
    for (node, d) in &e.deps {
        if let Some(a) = assets.get(*d).and_then(Clone::clone) {
            let scope = e
                .file
                .structure
                .scopes
                .get(node)
                .cloned()
                .unwrap_or(Scope::Once);
            doc.calls
                .insert(node.as_str().into(), Call { asset: a, scope });
        }
    }
    doc.curves = e.file.structure.curves.clone();
    doc.flow = e.file.structure.flow.clone();
    doc
}
