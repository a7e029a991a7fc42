//! Graph files: a versioned JSON format for [`Graph`]s, pleasant to write and diff by hand.
//!
//! ```json
//! {
//!   "kiln": 1,
//!   "description": "optional free text",
//!   "inputs": {
//!     "scale": { "type": "float", "default": 4.0, "doc": "optional" }
//!   },
//!   "nodes": {
//!     "twice": { "op": "math.mul", "inputs": { "a": "scale", "b": 2.0 } }
//!   },
//!   "outputs": { "result": "twice.out" }
//! }
//! ```
//!
//! * Every entry of `inputs`, `nodes` and `outputs` becomes one node whose id is its name.
//!   Graph inputs become `input.<type>` nodes with params `name` (= the id) and `default`;
//!   graph outputs become `output` nodes wired from the referenced port into their `value`.
//! * In a node's `inputs`, a string is a reference to an output port (`"node.port"`, or
//!   `"node"` for its port `out`), except that a string starting with `#` is a colour
//!   constant. Anything else is an inline constant; `{"const": x}` writes any constant
//!   (strings included), `{"type": "vec3", "value": [..]}` one of an explicit type.
//! * A param or input constant may be a blob reference, `{"type": "image", "blob":
//!   "baked.blobs/<hex>.kv"}`: a value stored beside a baked graph (see
//!   [baking](mod@crate::bake)), resolved by [`read_graph`] and [`load_graph_in`], checked,
//!   and a [`LoadError::Blob`] when missing or damaged.
//! * Values are read according to the declared type of the param or port in the registry
//!   (an int literal for a float param is a float, `[1, 2, 3]` for a vec3 port is a vec3, ...).
//!   A value that does not fit its declared type is still loaded (by inference) and reported
//!   by [`kiln_core::validate::validate`], together with unknown ops, ports and the rest.
//!
//! Loading fails ([`LoadError`]) only for what a [`Graph`] cannot hold: text that is not
//! JSON, a missing or unsupported version, a section of the wrong shape, a bad or duplicate
//! name, a node without `op`, an unknown key.
//!
//! The graph's description and the docs of its inputs are not part of [`Graph`]; they are
//! returned alongside it in [`GraphMeta`] (see [`GraphFile`]), and written back by
//! [`save_graph_with_meta`].
//!
//! [`save_graph`] writes the canonical form: keys in a fixed order, params and inputs sorted,
//! two-space indentation, short values on one line. Loading a canonical file and saving it
//! gives the same bytes; saving is a fixed point after one load.

use crate::convert::{self, ColorStyle, Ctx, InputSource, child};
use crate::json::{self, Doc, Json};
use crate::values::{WriteError, write_atomic};
use kiln_core::graph::{Graph, Node, PortRef, Wire};
use kiln_core::registry::{Registry, edit_distance};
use kiln_core::value::{Value, ValueType};
use kiln_std::graph_io::{INPUT_TYPES, OUTPUT_OP, input_op_for};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;
use std::path::{Path, PathBuf};

/// The graph file version this build reads and writes.
pub const VERSION: i64 = 1;

/// The keys allowed at the top level of a graph file.
pub const TOP_LEVEL_KEYS: [&str; 5] = ["kiln", "description", "inputs", "nodes", "outputs"];
/// The keys allowed in a node.
pub const NODE_KEYS: [&str; 3] = ["op", "params", "inputs"];
/// The keys allowed in a graph input.
pub const INPUT_KEYS: [&str; 3] = ["type", "default", "doc"];

/// Why a graph file could not be loaded.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LoadError {
    /// The file could not be read.
    #[error("cannot read `{}`: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The file is empty (or only whitespace).
    #[error(
        "the file is empty (hint: a graph file is a JSON object such as {{\"kiln\": 1, \"nodes\": {{}}}})"
    )]
    Empty,
    /// The file is not UTF-8 text.
    #[error(
        "the file is not UTF-8 text: invalid byte at line {line}, column {column} (hint: graph files are JSON text)"
    )]
    NotUtf8 {
        /// Line of the first invalid byte (1-based).
        line: usize,
        /// Column of the first invalid byte (1-based, in characters).
        column: usize,
    },
    /// The text is not valid JSON.
    #[error("invalid JSON at line {line}, column {column}: {message}")]
    Json {
        /// Line (1-based).
        line: usize,
        /// Column (1-based; 0 when the error is at the start of a line).
        column: usize,
        /// What the JSON parser reported.
        message: String,
    },
    /// The file has no `kiln` version key.
    #[error(
        "the file has no version (hint: add \"kiln\": {VERSION} as the first key of the top-level object)"
    )]
    MissingVersion,
    /// The file's version is not one this build reads.
    #[error(
        "unsupported graph file version {found}: this build of kiln reads version {VERSION} (hint: {hint})"
    )]
    UnsupportedVersion {
        /// The version found, as written.
        found: String,
        /// How to fix it.
        hint: String,
    },
    /// The JSON does not have the shape of a graph file.
    #[error("{}: {message}{}", FmtPath(path), FmtHint(hint))]
    Format {
        /// Where, as a path of keys such as `nodes.noise.inputs.scale` (empty: the top level).
        path: String,
        /// What is wrong.
        message: String,
        /// How to fix it.
        hint: Option<String>,
    },
    /// A blob reference (a value stored beside a baked graph, see [baking](mod@crate::bake))
    /// could not be resolved: the blob is missing, damaged, or the graph was not read from a
    /// file.
    #[error("{}: blob `{blob}` {message}{}", FmtPath(path), FmtHint(hint))]
    Blob {
        /// Where the reference is, as a path of keys such as `nodes.sky.params.value`.
        path: String,
        /// The reference as written (`baked.blobs/<hex>.kv`).
        blob: String,
        /// What is wrong.
        message: String,
        /// How to fix it.
        hint: Option<String>,
    },
}

/// Displays a JSON location (`at nodes.a.op`, or `at the top level`).
pub(crate) struct FmtPath<'a>(pub(crate) &'a str);
impl fmt::Display for FmtPath<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            f.write_str("at the top level")
        } else {
            write!(f, "at {}", self.0)
        }
    }
}

/// Displays an optional hint as ` (hint: ...)`.
pub(crate) struct FmtHint<'a>(pub(crate) &'a Option<String>);
impl fmt::Display for FmtHint<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(h) => write!(f, " (hint: {h})"),
            None => Ok(()),
        }
    }
}

impl LoadError {
    pub(crate) fn format(path: &str, message: String, hint: Option<String>) -> LoadError {
        LoadError::Format {
            path: path.to_string(),
            message,
            hint,
        }
    }

    /// The JSON location of a format or blob error (`nodes.noise.inputs.scale`), if it is one.
    pub fn location(&self) -> Option<&str> {
        match self {
            LoadError::Format { path, .. } | LoadError::Blob { path, .. } => Some(path),
            _ => None,
        }
    }
}

fn from_json_error(e: serde_json::Error) -> LoadError {
    let (line, column, message) = json_error_parts(&e);
    LoadError::Json {
        line,
        column,
        message,
    }
}

/// An unsupported format version, as (what was found, a hint): upgrade kiln when `found`
/// is newer than `current`, else write `"key": current`. `what` names the document.
pub(crate) fn version_mismatch(
    found: &Json,
    current: i64,
    what: &str,
    key: &str,
) -> (String, String) {
    let mut text = String::new();
    json::compact(found, &mut text);
    let newer = match found {
        Json::Int(n) => *n > current,
        Json::UInt(_) => true,
        _ => false,
    };
    let hint = if newer {
        format!("the {what} was written by a newer kiln; upgrade kiln to read version {text}")
    } else {
        format!("write \"{key}\": {current}")
    };
    (text, hint)
}

/// A JSON syntax error as (line, column, message without the position).
pub(crate) fn json_error_parts(e: &serde_json::Error) -> (usize, usize, String) {
    let (line, column) = (e.line(), e.column());
    let full = e.to_string();
    let suffix = format!(" at line {line} column {column}");
    let message = full.strip_suffix(&suffix).unwrap_or(&full).to_string();
    (line, column, message)
}

/// What a graph file holds besides the graph.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GraphMeta {
    /// The file's `description`.
    pub description: Option<String>,
    /// The `doc` of each graph input, by input name.
    pub input_docs: BTreeMap<String, String>,
}

/// A loaded graph file: the graph and its metadata.
#[derive(Clone, Debug, PartialEq)]
pub struct GraphFile {
    /// The graph.
    pub graph: Graph,
    /// Description and input docs.
    pub meta: GraphMeta,
}

impl GraphFile {
    /// A graph with no metadata.
    pub fn new(graph: Graph) -> GraphFile {
        GraphFile {
            graph,
            meta: GraphMeta::default(),
        }
    }
    /// The canonical text of this file (see [`save_graph_with_meta`]).
    pub fn to_json(&self, registry: &Registry) -> String {
        save_graph_with_meta(&self.graph, &self.meta, registry)
    }
}

// ---------------------------------------------------------------------------------------------
// Loading

/// Read and load a graph file. Errors other than [`LoadError::Io`] do not repeat the path;
/// callers usually print `path: error`. Blob references (in baked graphs, see
/// [baking](mod@crate::bake)) are resolved relative to the file's folder.
pub fn read_graph(path: &Path, registry: &Registry) -> Result<GraphFile, LoadError> {
    let bytes = std::fs::read(path).map_err(|source| LoadError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    load_bytes(&bytes, registry, Some(dir))
}

/// Load a graph file from bytes (which must be UTF-8; a leading byte-order mark is skipped).
/// A blob reference is a [`LoadError::Blob`]: use [`read_graph`] or [`load_graph_in`].
pub fn load_graph_bytes(bytes: &[u8], registry: &Registry) -> Result<GraphFile, LoadError> {
    load_bytes(bytes, registry, None)
}

fn load_bytes(
    bytes: &[u8],
    registry: &Registry,
    blobs: Option<&Path>,
) -> Result<GraphFile, LoadError> {
    match std::str::from_utf8(bytes) {
        Ok(text) => load_text(text, registry, blobs),
        Err(e) => {
            let valid = bytes.get(..e.valid_up_to()).unwrap_or_default();
            let prefix = std::str::from_utf8(valid).unwrap_or_default();
            let line = prefix.matches('\n').count() + 1;
            let last_line = prefix.rsplit('\n').next().unwrap_or_default();
            Err(LoadError::NotUtf8 {
                line,
                column: last_line.chars().count() + 1,
            })
        }
    }
}

/// Load a graph file from text. The registry directs how values are read (see the module
/// docs); ops it does not know are kept, for [`kiln_core::validate::validate`] to report.
/// A blob reference is a [`LoadError::Blob`]: use [`read_graph`] or [`load_graph_in`].
pub fn load_graph(text: &str, registry: &Registry) -> Result<GraphFile, LoadError> {
    load_text(text, registry, None)
}

/// Load a graph file from text, resolving blob references (see [baking](mod@crate::bake))
/// relative to the folder `dir`, as [`read_graph`] does for a file in `dir`.
pub fn load_graph_in(text: &str, registry: &Registry, dir: &Path) -> Result<GraphFile, LoadError> {
    load_text(text, registry, Some(dir))
}

fn load_text(
    text: &str,
    registry: &Registry,
    blobs: Option<&Path>,
) -> Result<GraphFile, LoadError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.trim_matches([' ', '\t', '\n', '\r']).is_empty() {
        return Err(LoadError::Empty);
    }
    let doc = json::parse(text).map_err(from_json_error)?;
    load_doc(&doc, registry, blobs)
}

fn suggest(key: &str, allowed: &[&str]) -> String {
    let close = allowed
        .iter()
        .map(|a| (edit_distance(a, key), *a))
        .filter(|(d, _)| *d <= 2 && 2 * d < key.chars().count())
        .min();
    match close {
        Some((_, a)) => format!("did you mean `{a}`? allowed keys: {}", allowed.join(", ")),
        None => format!("allowed keys: {}", allowed.join(", ")),
    }
}

/// Entries of an object, or an error saying what `what` must be.
fn object<'a>(j: &'a Json, path: &str, what: &str) -> Result<&'a [(String, Json)], LoadError> {
    match j {
        Json::Object(entries) => Ok(entries),
        other => Err(LoadError::format(
            path,
            format!("{what} must be an object, found {}", other.kind()),
            None,
        )),
    }
}

/// Check that no key repeats and every key is allowed (`what`: "node `a`", empty at the top).
fn check_keys(
    entries: &[(String, Json)],
    path: &str,
    what: &str,
    allowed: &[&str],
) -> Result<(), LoadError> {
    let mut seen = HashSet::new();
    for (k, _) in entries {
        if !seen.insert(k.as_str()) {
            return Err(LoadError::format(
                &child(path, k),
                format!("key `{k}` appears twice"),
                Some("keep one".into()),
            ));
        }
        if !allowed.contains(&k.as_str()) {
            let message = if what.is_empty() {
                format!("unknown top-level key `{k}`")
            } else {
                format!("unknown key `{k}` in {what}")
            };
            return Err(LoadError::format(
                &child(path, k),
                message,
                Some(suggest(k, allowed)),
            ));
        }
    }
    Ok(())
}

fn get<'a>(entries: &'a [(String, Json)], key: &str) -> Option<&'a Json> {
    entries.iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

/// Whether `s` matches `[A-Za-z_][A-Za-z0-9_-]*`.
pub fn is_valid_name(s: &str) -> bool {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) if c.is_ascii_alphabetic() || c == '_' => {}
        _ => return false,
    }
    chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Section {
    Inputs,
    Nodes,
    Outputs,
}

impl Section {
    fn key(self) -> &'static str {
        match self {
            Section::Inputs => "inputs",
            Section::Nodes => "nodes",
            Section::Outputs => "outputs",
        }
    }
    fn what(self) -> &'static str {
        match self {
            Section::Inputs => "input",
            Section::Nodes => "node",
            Section::Outputs => "output",
        }
    }
}

struct Names<'a> {
    seen: HashMap<&'a str, Section>,
}

impl<'a> Names<'a> {
    fn claim(&mut self, name: &'a str, section: Section) -> Result<(), LoadError> {
        let path = child(section.key(), name);
        if !is_valid_name(name) {
            return Err(LoadError::format(
                section.key(),
                format!("invalid {} name `{}`", section.what(), name.escape_debug()),
                Some(
                    "names start with a letter or `_` and continue with letters, digits, `_` or `-`"
                        .into(),
                ),
            ));
        }
        if let Some(prev) = self.seen.insert(name, section) {
            return Err(if prev == section {
                LoadError::format(
                    &path,
                    format!("{} `{name}` is defined twice", section.what()),
                    Some("names must be unique: rename or remove one".into()),
                )
            } else {
                LoadError::format(
                    &path,
                    format!(
                        "{} `{name}` has the same name as {} `{name}`",
                        section.what(),
                        prev.what()
                    ),
                    Some(
                        "inputs, nodes and outputs each become a node, so they share one set of names: rename one"
                            .into(),
                    ),
                )
            });
        }
        Ok(())
    }
}

fn param_type(registry: &Registry, op: &str, name: &str) -> Option<ValueType> {
    registry.get(op).and_then(|o| {
        o.spec()
            .params
            .iter()
            .find(|p| p.name == name)
            .map(|p| p.ty)
    })
}

fn input_type(registry: &Registry, op: &str, port: &str) -> Option<ValueType> {
    registry.get(op).and_then(|o| {
        o.spec()
            .inputs
            .iter()
            .find(|p| p.name == port)
            .map(|p| p.ty)
    })
}

fn graph_error(path: &str, e: kiln_core::graph::GraphError) -> LoadError {
    LoadError::format(path, e.to_string(), None)
}

fn load_doc(doc: &Json, registry: &Registry, blobs: Option<&Path>) -> Result<GraphFile, LoadError> {
    let Json::Object(top) = doc else {
        return Err(LoadError::format(
            "",
            format!("a graph file must be a JSON object, found {}", doc.kind()),
            Some(format!(
                "a graph file looks like {{\"kiln\": {VERSION}, \"nodes\": {{...}}}}"
            )),
        ));
    };

    // The version comes first: a newer file may use keys this build does not know.
    match get(top, "kiln") {
        None => return Err(LoadError::MissingVersion),
        Some(Json::Int(VERSION)) => {}
        Some(other) => {
            let (found, hint) = version_mismatch(other, VERSION, "file", "kiln");
            return Err(LoadError::UnsupportedVersion { found, hint });
        }
    }
    check_keys(top, "", "", &TOP_LEVEL_KEYS)?;

    let mut meta = GraphMeta::default();
    if let Some(d) = get(top, "description") {
        match d {
            Json::Str(s) => meta.description = Some(s.clone()),
            other => {
                return Err(LoadError::format(
                    "description",
                    format!("`description` must be a string, found {}", other.kind()),
                    None,
                ));
            }
        }
    }
    let empty: &[(String, Json)] = &[];
    let section = |key: &str| -> Result<&[(String, Json)], LoadError> {
        match get(top, key) {
            Some(j) => object(j, key, &format!("`{key}`")),
            None => Ok(empty),
        }
    };
    let inputs = section("inputs")?;
    let nodes = section("nodes")?;
    let outputs = section("outputs")?;

    let mut names = Names {
        seen: HashMap::new(),
    };
    for (name, _) in inputs {
        names.claim(name, Section::Inputs)?;
    }
    for (name, _) in nodes {
        names.claim(name, Section::Nodes)?;
    }
    for (name, _) in outputs {
        names.claim(name, Section::Outputs)?;
    }

    let mut g = Graph::new();
    let mut blobs = crate::bake::BlobReader::new(blobs, registry);

    // Graph inputs.
    for (name, def) in inputs {
        let path = child("inputs", name);
        let entries = object(def, &path, &format!("input `{name}`")).map_err(|e| match e {
            LoadError::Format { path, message, .. } => LoadError::Format {
                path,
                message,
                hint: Some(r#"write {"type": "float", "default": 1.0}"#.into()),
            },
            other => other,
        })?;
        check_keys(entries, &path, &format!("input `{name}`"), &INPUT_KEYS)?;
        let types: Vec<&str> = INPUT_TYPES.iter().map(|(_, t)| t.name()).collect();
        let ty = match get(entries, "type") {
            Some(Json::Str(t)) => ValueType::parse_plain(t)
                .and_then(|ty| input_op_for(ty).map(|op| (ty, op)))
                .ok_or_else(|| {
                    LoadError::format(
                        &child(&path, "type"),
                        format!("graph inputs cannot have type `{t}`"),
                        Some(format!("one of: {}", types.join(", "))),
                    )
                })?,
            Some(other) => {
                return Err(LoadError::format(
                    &child(&path, "type"),
                    format!("`type` must be a string, found {}", other.kind()),
                    Some(format!("one of: {}", types.join(", "))),
                ));
            }
            None => {
                return Err(LoadError::format(
                    &path,
                    format!("input `{name}` has no `type`"),
                    Some(format!("add \"type\": one of {}", types.join(", "))),
                ));
            }
        };
        let (ty, op) = ty;
        g.add_node(name.as_str(), op)
            .map_err(|e| graph_error(&path, e))?;
        g.set_param(name, "name", Value::str(name))
            .map_err(|e| graph_error(&path, e))?;
        if let Some(d) = get(entries, "default") {
            let dpath = child(&path, "default");
            let v = convert::decode_value(d, Some(ty), &dpath)?;
            g.set_param(name, "default", v)
                .map_err(|e| graph_error(&dpath, e))?;
        }
        match get(entries, "doc") {
            None => {}
            Some(Json::Str(doc)) => {
                meta.input_docs.insert(name.clone(), doc.clone());
            }
            Some(other) => {
                return Err(LoadError::format(
                    &child(&path, "doc"),
                    format!("`doc` must be a string, found {}", other.kind()),
                    None,
                ));
            }
        }
    }

    // Nodes.
    for (name, def) in nodes {
        let path = child("nodes", name);
        let entries = match def {
            Json::Object(e) => e,
            other => {
                return Err(LoadError::format(
                    &path,
                    format!("node `{name}` must be an object, found {}", other.kind()),
                    Some(r#"write {"op": "<op id>", "params": {...}, "inputs": {...}}"#.into()),
                ));
            }
        };
        check_keys(entries, &path, &format!("node `{name}`"), &NODE_KEYS)?;
        let op = match get(entries, "op") {
            Some(Json::Str(op)) => op.as_str(),
            Some(other) => {
                return Err(LoadError::format(
                    &child(&path, "op"),
                    format!("`op` must be a string, found {}", other.kind()),
                    Some("`kiln ops` lists the op ids".into()),
                ));
            }
            None => {
                return Err(LoadError::format(
                    &path,
                    format!("node `{name}` has no `op`"),
                    Some(r#"add "op": "<op id>"; `kiln ops` lists them"#.into()),
                ));
            }
        };
        g.add_node(name.as_str(), op)
            .map_err(|e| graph_error(&path, e))?;
        if let Some(params) = get(entries, "params") {
            let ppath = child(&path, "params");
            let params = object(params, &ppath, "`params`")?;
            let mut seen = HashSet::new();
            for (p, j) in params {
                let vpath = child(&ppath, p);
                if !seen.insert(p.as_str()) {
                    return Err(LoadError::format(
                        &vpath,
                        format!("param `{p}` is set twice"),
                        Some("keep one".into()),
                    ));
                }
                let v = match blobs.read(j, &vpath)? {
                    Some(v) => v,
                    None => convert::decode_value(j, param_type(registry, op, p), &vpath)?,
                };
                g.set_param(name, p, v)
                    .map_err(|e| graph_error(&vpath, e))?;
            }
        }
        if let Some(ins) = get(entries, "inputs") {
            let ipath = child(&path, "inputs");
            let ins = object(ins, &ipath, "`inputs`")?;
            let mut has_const = HashSet::new();
            for (port, j) in ins {
                let vpath = child(&ipath, port);
                let source = match blobs.read(j, &vpath)? {
                    Some(v) => InputSource::Const(v),
                    None => convert::decode_input(j, input_type(registry, op, port), &vpath)?,
                };
                match source {
                    InputSource::Wire(from) => {
                        g.connect(from, PortRef::new(name.as_str(), port));
                    }
                    InputSource::Const(v) => {
                        // A graph holds one constant per port; a second one has nowhere to go.
                        if !has_const.insert(port.as_str()) {
                            return Err(LoadError::format(
                                &vpath,
                                format!("input `{port}` is given two constants"),
                                Some("keep one".into()),
                            ));
                        }
                        g.set_const(name, port, v)
                            .map_err(|e| graph_error(&vpath, e))?;
                    }
                }
            }
        }
    }

    // Graph outputs.
    for (name, source) in outputs {
        let path = child("outputs", name);
        let Json::Str(source) = source else {
            return Err(LoadError::format(
                &path,
                format!(
                    "output `{name}` must name a port as a string, found {}",
                    source.kind()
                ),
                Some(format!("write \"{name}\": \"node.port\"")),
            ));
        };
        g.add_node(name.as_str(), OUTPUT_OP)
            .map_err(|e| graph_error(&path, e))?;
        g.connect(PortRef::parse(source), PortRef::new(name.as_str(), "value"));
    }

    Ok(GraphFile { graph: g, meta })
}

// ---------------------------------------------------------------------------------------------
// Saving

/// Write `graph` in the canonical form, with no description or input docs.
///
/// See [`save_graph_with_meta`].
pub fn save_graph(graph: &Graph, registry: &Registry) -> String {
    save_graph_with_meta(graph, &GraphMeta::default(), registry)
}

/// A reference to `p` that [`PortRef::parse`] reads back as `p`: `node.port` where possible.
fn reference(p: &PortRef) -> String {
    let full = format!("{}.{}", p.node, p.port);
    if PortRef::parse(&full) != *p && p.port == "out" && PortRef::parse(p.node.as_str()) == *p {
        return p.node.to_string();
    }
    full
}

/// The type of a node that can be written as a graph input.
fn as_graph_input(node: &Node, incoming: &[&Wire]) -> Option<ValueType> {
    let ty = INPUT_TYPES
        .iter()
        .find(|(op, _)| *op == node.op)
        .map(|(_, t)| *t)?;
    let named = node.params.get("name").and_then(Value::as_str) == Some(node.id.as_str());
    let only_known = node.params.keys().all(|k| k == "name" || k == "default");
    (named && only_known && node.consts.is_empty() && incoming.is_empty()).then_some(ty)
}

/// The source of a node that can be written as a graph output.
fn as_graph_output<'a>(node: &Node, incoming: &[&'a Wire]) -> Option<&'a Wire> {
    match incoming {
        [w] if node.op == OUTPUT_OP
            && node.params.is_empty()
            && node.consts.is_empty()
            && w.to.port == "value" =>
        {
            Some(w)
        }
        _ => None,
    }
}

/// Write `graph` and its metadata in the canonical form.
///
/// * Top-level keys in the order `kiln`, `description` (if any), `inputs` (if any), `nodes`,
///   `outputs` (if any); two-space indentation; a final newline.
/// * Nodes of op `input.<type>` whose `name` param is their id (and that have no other params,
///   no constants and no incoming wires) are written under `inputs`; nodes of op `output` with
///   exactly one wire, into `value`, and nothing else are written under `outputs`; every other
///   node under `nodes`, in graph order. Reading the file back puts inputs first, then nodes,
///   then outputs.
/// * A node's params and inputs are sorted by name; references are written `node.port`.
/// * Each value is written in the form that reads back to exactly the same value for the
///   declared type of its param or port: floats always with a `.` or exponent, colours as
///   `#rrggbb`/`#rrggbbaa` when exact at 8 bits, and the typed form
///   `{"type": ..., "value": ...}` wherever the plain form would read back differently.
///
/// Not representable, hence not written: wires into nodes that do not exist, and heavy
/// values set as params or constants (written as `null`). Node ids are written as they are;
/// ids that are not valid names (see [`is_valid_name`]) will not load back.
pub fn save_graph_with_meta(graph: &Graph, meta: &GraphMeta, registry: &Registry) -> String {
    save_graph_with(graph, meta, registry, &|_| None)
}

/// [`save_graph_with_meta`], writing each param or constant for which `blob` gives a
/// reference as the blob reference `{"type": ..., "blob": reference}` (see
/// [baking](mod@crate::bake)).
pub(crate) fn save_graph_with(
    graph: &Graph,
    meta: &GraphMeta,
    registry: &Registry,
    blob: &dyn Fn(&Value) -> Option<String>,
) -> String {
    let mut incoming: HashMap<&str, Vec<&Wire>> = HashMap::new();
    for w in graph.wires() {
        incoming.entry(w.to.node.as_str()).or_default().push(w);
    }
    let mut inputs = vec![];
    let mut nodes = vec![];
    let mut outputs = vec![];
    for node in graph.nodes() {
        let id = node.id.to_string();
        let into: &[&Wire] = incoming.get(node.id.as_str()).map_or(&[], |v| v);
        if let Some(ty) = as_graph_input(node, into) {
            let mut def = vec![("type".to_string(), Json::Str(ty.name().into()))];
            if let Some(d) = node.params.get("default") {
                let j = convert::encode(d, Some(ty), Ctx::Param, ColorStyle::Hex);
                def.push(("default".into(), j));
            }
            if let Some(doc) = meta.input_docs.get(&id) {
                def.push(("doc".into(), Json::Str(doc.clone())));
            }
            inputs.push((id, Doc::Value(Json::Object(def))));
        } else if let Some(w) = as_graph_output(node, into) {
            outputs.push((id, Doc::Value(Json::Str(reference(&w.from)))));
        } else {
            nodes.push((id, node_doc(node, into, registry, blob)));
        }
    }
    let mut top = vec![("kiln".to_string(), Doc::Value(Json::Int(VERSION)))];
    if let Some(d) = &meta.description {
        top.push(("description".into(), Doc::Value(Json::Str(d.clone()))));
    }
    if !inputs.is_empty() {
        top.push(("inputs".into(), Doc::Block(inputs)));
    }
    top.push(("nodes".into(), Doc::Block(nodes)));
    if !outputs.is_empty() {
        top.push(("outputs".into(), Doc::Block(outputs)));
    }
    let mut out = String::new();
    json::write_doc(&Doc::Block(top), 0, &mut out);
    out.push('\n');
    out
}

fn node_doc(
    node: &Node,
    incoming: &[&Wire],
    registry: &Registry,
    blob: &dyn Fn(&Value) -> Option<String>,
) -> Doc {
    let mut entries = vec![("op".to_string(), Doc::Value(Json::Str(node.op.clone())))];
    if !node.params.is_empty() {
        let params = node
            .params
            .iter()
            .map(|(k, v)| {
                let j = match blob(v) {
                    Some(r) => crate::bake::blob_json(v, r),
                    None => convert::encode(
                        v,
                        param_type(registry, &node.op, k),
                        Ctx::Param,
                        ColorStyle::Hex,
                    ),
                };
                (k.clone(), Doc::Value(j))
            })
            .collect();
        entries.push(("params".into(), Doc::Block(params)));
    }
    let mut ins: Vec<(String, Json)> = incoming
        .iter()
        .map(|w| (w.to.port.clone(), Json::Str(reference(&w.from))))
        .collect();
    ins.extend(node.consts.iter().map(|(port, v)| {
        let j = match blob(v) {
            Some(r) => crate::bake::blob_json(v, r),
            None => convert::encode(
                v,
                input_type(registry, &node.op, port),
                Ctx::Input,
                ColorStyle::Hex,
            ),
        };
        (port.clone(), j)
    }));
    // Stable: several sources for one port keep their order (wires, then the constant).
    ins.sort_by(|a, b| a.0.cmp(&b.0));
    if !ins.is_empty() {
        entries.push((
            "inputs".into(),
            Doc::Block(ins.into_iter().map(|(k, j)| (k, Doc::Value(j))).collect()),
        ));
    }
    Doc::Block(entries)
}

/// Write a graph file atomically (see [`write_atomic`]).
pub fn write_graph(path: &Path, file: &GraphFile, registry: &Registry) -> Result<(), WriteError> {
    write_atomic(path, file.to_json(registry).as_bytes())
}
