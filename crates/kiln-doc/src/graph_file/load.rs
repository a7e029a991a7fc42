//! Loading graph files: from a path, bytes or text, then the document step by step — the
//! top level (version, keys, description), the names of every section, and the graph built
//! from its inputs, nodes and outputs in that order.

use super::from_json_error;
use super::names::Names;
use super::section::Section;
use super::shape::{check_keys, get, object};
use super::structure::Structure;
use super::{
    GraphFile, GraphMeta, INLINE_KEYS, INPUT_KEYS, LoadError, NODE_KEYS, OUTPUT_KEYS,
    TOP_LEVEL_KEYS, VERSION, input_type, param_type, version_mismatch,
};
use kiln_core::graph::{Graph, PortRef};
use kiln_core::registry::Registry;
use kiln_core::value::{Value, ValueType};
use kiln_io::blob::BlobReader;
use kiln_io::convert::{self, InputSource, child};
use kiln_io::image_files::ColorSpace;
use kiln_io::input_file::{InputFileError, MAX_INPUT_BYTES, read_input_file};
use kiln_io::json::{self, Json};
use kiln_std::graph_io::{INPUT_TYPES, OUTPUT_OP, input_op_for};
use std::collections::HashSet;
use std::path::Path;

/// Read and load a graph file: a regular file (not a FIFO or a device) of at most
/// [`MAX_INPUT_BYTES`], refused from its metadata before it is read. Errors other than [`LoadError::Io`] do not repeat the path;
/// callers usually print `path: error`. Blob references (in baked graphs, see
/// [blobs](mod@crate::blob)) are resolved relative to the file's folder.
pub fn read_graph(path: &Path, registry: &Registry) -> Result<GraphFile, LoadError> {
    let bytes = read_input_file(path, MAX_INPUT_BYTES).map_err(|e| match e {
        InputFileError::Io { path, source } => LoadError::Io { path, source },
        other => LoadError::Input(other),
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

/// Load a graph file from text, resolving blob references (see [blobs](mod@crate::blob))
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
    let mut doc = json::parse(text).map_err(from_json_error)?;
    load_doc(&mut doc, registry, blobs, "")
}

/// The entries of one section of a graph file (empty when the section is absent).
type Entries<'a> = &'a [(String, Json)];

/// Build a graph file from its parsed JSON: the top level first (a newer version may use
/// keys this build does not know), then every name, then inputs, nodes and outputs.
/// `at` is empty for a file, and the path of its entry (`graphs.brick`) for a graph defined
/// inline, which has no version of its own.
///
/// Each node's part of the tree is dropped once the node is built, so the tree and the
/// graph are not both whole in memory at once.
fn load_doc(
    doc: &mut Json,
    registry: &Registry,
    blobs: Option<&Path>,
    at: &str,
) -> Result<GraphFile, LoadError> {
    let top = if at.is_empty() {
        top_level(doc)?
    } else {
        let top = object(doc, at, &format!("graph `{at}`"))?;
        check_keys(top, at, &format!("graph `{at}`"), &INLINE_KEYS)?;
        top
    };
    let mut meta = GraphMeta {
        description: description(top)?,
        positions: super::editor::positions(top)?,
        ..GraphMeta::default()
    };
    let [inputs, nodes, outputs] = sections(top)?;
    claim_names(inputs, nodes, outputs)?;
    let mut builder = Builder {
        graph: Graph::new(),
        registry,
        blobs: BlobReader::new(blobs, registry),
        structure: Structure::default(),
    };
    if super::structure::is_flow(top, at)? {
        builder.structure.flow = Some(Default::default());
    }
    // Room for the nodes up front (no doubling), none for the wires yet: that room would be
    // taken while the tree is still whole.
    builder
        .graph
        .reserve(inputs.len() + nodes.len() + outputs.len(), 0);
    // From here the tree is changed: the graphs defined inline and each node are dropped
    // from it once built.
    if let Some(defs) = section_mut(doc, "graphs") {
        let gpath = child(at, "graphs");
        object(defs, &gpath, "`graphs`")?;
        for (name, def) in entries_mut(defs) {
            let dpath = child(&gpath, name);
            if !super::is_valid_name(name) {
                return Err(LoadError::format(
                    &dpath,
                    format!("`{name}` is not a valid graph name"),
                    None,
                ));
            }
            let file = load_doc(def, registry, blobs, &dpath)?;
            builder.structure.graphs.insert(name.clone(), file);
            *def = Json::Null;
        }
    }
    let [inputs, _, _] = sections(entries_mut(doc))?;
    for (name, def) in inputs {
        if let Some(doc) = builder.add_input(name, def)? {
            meta.input_docs.insert(name.clone(), doc);
        }
    }
    if let Some(nodes) = section_mut(doc, "nodes") {
        for (name, def) in entries_mut(nodes) {
            builder.add_node(name, def)?;
            *def = Json::Null;
        }
    }
    let [_, _, outputs] = sections(entries_mut(doc))?;
    for (name, source) in outputs {
        if let Some(space) = builder.add_output(name, source)? {
            meta.output_colors.insert(name.clone(), space);
        }
    }
    Ok(GraphFile {
        graph: builder.graph,
        meta,
        structure: builder.structure,
    })
}

/// The entries of an object, to change (none for another value).
fn entries_mut(j: &mut Json) -> &mut [(String, Json)] {
    match j {
        Json::Object(e) => e,
        _ => &mut [],
    }
}

/// The value of `key` in object `j`, to change.
fn section_mut<'a>(j: &'a mut Json, key: &str) -> Option<&'a mut Json> {
    entries_mut(j)
        .iter_mut()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v)
}

/// The entries of the top-level object, once its version is one this build reads and its
/// keys are all known.
fn top_level(doc: &Json) -> Result<Entries<'_>, LoadError> {
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
    Ok(top)
}

/// The file's `description`, which must be a string.
fn description(top: Entries<'_>) -> Result<Option<String>, LoadError> {
    match get(top, "description") {
        None => Ok(None),
        Some(Json::Str(s)) => Ok(Some(s.clone())),
        Some(other) => Err(LoadError::format(
            "description",
            format!("`description` must be a string, found {}", other.kind()),
            None,
        )),
    }
}

/// The `inputs`, `nodes` and `outputs` sections, each an object.
fn sections(top: Entries<'_>) -> Result<[Entries<'_>; 3], LoadError> {
    let section = |key: &str| -> Result<Entries<'_>, LoadError> {
        match get(top, key) {
            Some(j) => object(j, key, &format!("`{key}`")),
            None => Ok(&[]),
        }
    };
    Ok([section("inputs")?, section("nodes")?, section("outputs")?])
}

/// Check every name of the three sections: valid, and defined once across them.
fn claim_names(
    inputs: Entries<'_>,
    nodes: Entries<'_>,
    outputs: Entries<'_>,
) -> Result<(), LoadError> {
    let mut names = Names::default();
    for (section, entries) in [
        (Section::Inputs, inputs),
        (Section::Nodes, nodes),
        (Section::Outputs, outputs),
    ] {
        for (name, _) in entries {
            names.claim(name, section)?;
        }
    }
    Ok(())
}

fn graph_error(path: &str, e: kiln_core::graph::GraphError) -> LoadError {
    LoadError::format(path, e.to_string(), None)
}

/// The graph being built from the sections, with the blob references read so far.
struct Builder<'a> {
    graph: Graph,
    registry: &'a Registry,
    blobs: BlobReader<'a>,
    structure: Structure,
}

impl Builder<'_> {
    /// Add graph input `name` (an `input.<type>` node with params `name` and `default`);
    /// returns its `doc`, if any.
    fn add_input(&mut self, name: &str, def: &Json) -> Result<Option<String>, LoadError> {
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
        let (ty, op) = input_type_and_op(self.registry, entries, &path, name)?;
        let g = &mut self.graph;
        g.add_node(name, op).map_err(|e| graph_error(&path, e))?;
        g.set_param(name, "name", Value::str(name))
            .map_err(|e| graph_error(&path, e))?;
        if let ValueType::ListOf(_) = ty {
            g.set_param(name, "type", Value::str(ty.name()))
                .map_err(|e| graph_error(&path, e))?;
        }
        match get(entries, "collective") {
            None | Some(Json::Bool(false)) => {}
            Some(Json::Bool(true)) if ty.is_list() => {
                g.set_param(name, "collective", Value::Bool(true))
                    .map_err(|e| graph_error(&path, e))?;
            }
            Some(Json::Bool(true)) => {
                return Err(LoadError::format(
                    &child(&path, "collective"),
                    format!("a collective input holds a list; `{name}` is a {ty}"),
                    Some(r#"write "type": "list<float>" (or another list type)"#.into()),
                ));
            }
            Some(other) => {
                return Err(LoadError::format(
                    &child(&path, "collective"),
                    format!("`collective` must be true or false, found {}", other.kind()),
                    None,
                ));
            }
        }
        match get(entries, "color") {
            None => {}
            Some(Json::Str(c)) if ty == kiln_image::image::IMAGE_TYPE => {
                let cpath = child(&path, "color");
                if !matches!(c.as_str(), "auto" | "srgb" | "data") {
                    return Err(LoadError::format(
                        &cpath,
                        format!("`color` must be auto, srgb or data, found `{c}`"),
                        None,
                    ));
                }
                g.set_param(name, kiln_image::INPUT_COLOR_PARAM, Value::str(c.as_str()))
                    .map_err(|e| graph_error(&cpath, e))?;
            }
            Some(Json::Str(_)) => {
                return Err(LoadError::format(
                    &child(&path, "color"),
                    format!("only an image input says how its file is read; `{name}` is a {ty}"),
                    None,
                ));
            }
            Some(other) => {
                return Err(LoadError::format(
                    &child(&path, "color"),
                    format!("`color` must be a string, found {}", other.kind()),
                    None,
                ));
            }
        }
        if let Some(d) = get(entries, "default") {
            let dpath = child(&path, "default");
            let v = convert::decode_value(d, Some(ty), &dpath)?;
            g.set_param(name, "default", v)
                .map_err(|e| graph_error(&dpath, e))?;
        }
        match get(entries, "doc") {
            None => Ok(None),
            Some(Json::Str(doc)) => Ok(Some(doc.clone())),
            Some(other) => Err(LoadError::format(
                &child(&path, "doc"),
                format!("`doc` must be a string, found {}", other.kind()),
                None,
            )),
        }
    }

    /// Add node `name` with its op, params and inputs (wires and constants).
    fn add_node(&mut self, name: &str, def: &Json) -> Result<(), LoadError> {
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
        let op = node_op(entries, &path, name)?;
        self.graph
            .add_node(name, op)
            .map_err(|e| graph_error(&path, e))?;
        if let Some(scope) = super::structure::scope(entries, &path, name)? {
            if !op.starts_with(crate::document::CALL_PREFIX) {
                return Err(LoadError::format(
                    &path,
                    format!(
                        "node `{name}` has a scope, but only a call of a graph (`\"op\": \"@name\"`) takes one"
                    ),
                    None,
                ));
            }
            self.structure.scopes.insert(name.to_string(), scope);
        }
        if let Some(j) = get(entries, "loop") {
            let lpath = child(&path, "loop");
            let ports = super::structure::loop_ports(j, &lpath)?;
            let Some(flow) = self.structure.flow.as_mut() else {
                return Err(LoadError::format(
                    &lpath,
                    format!(
                        "node `{name}` has loop ports, but only a flow graph \
                         (`\"paradigm\": \"flow\"`) has them"
                    ),
                    None,
                ));
            };
            for (port, cap) in ports {
                flow.loops.insert(PortRef::new(name, &port), cap);
            }
        }
        if let Some(params) = get(entries, "params") {
            self.set_params(name, op, params, &child(&path, "params"))?;
        }
        if let Some(ins) = get(entries, "inputs") {
            self.set_inputs(name, op, ins, &child(&path, "inputs"))?;
        }
        Ok(())
    }

    /// Set the params of node `name` (of op `op`) from its `params` object at `ppath`.
    fn set_params(
        &mut self,
        name: &str,
        op: &str,
        params: &Json,
        ppath: &str,
    ) -> Result<(), LoadError> {
        let params = object(params, ppath, "`params`")?;
        let mut seen = HashSet::new();
        for (p, j) in params {
            let vpath = child(ppath, p);
            if !seen.insert(p.as_str()) {
                return Err(LoadError::format(
                    &vpath,
                    format!("param `{p}` is set twice"),
                    Some("keep one".into()),
                ));
            }
            // A param the op has made an input since (like `octaves` or `stops`, marked
            // `was_param`) sets that input's constant, so files written before still load.
            let ty = param_type(self.registry, op, p);
            let as_input = match ty {
                None => super::former_param_type(self.registry, op, p),
                Some(_) => None,
            };
            // A curve stays a param's: the plan samples it into the input's constant.
            if let Some(a) = super::structure::curve(j, &vpath, true)? {
                self.structure.curves.insert(PortRef::new(name, p), a);
                continue;
            }
            let v = match self.blobs.read(j, &vpath)? {
                Some(v) => v,
                None => convert::decode_value(j, ty.or(as_input), &vpath)?,
            };
            if as_input.is_some() {
                self.graph
                    .set_const(name, p, v)
                    .map_err(|e| graph_error(&vpath, e))?;
                continue;
            }
            self.graph
                .set_param(name, p, v)
                .map_err(|e| graph_error(&vpath, e))?;
        }
        Ok(())
    }

    /// Wire or set the inputs of node `name` (of op `op`) from its `inputs` object at `ipath`.
    fn set_inputs(
        &mut self,
        name: &str,
        op: &str,
        ins: &Json,
        ipath: &str,
    ) -> Result<(), LoadError> {
        let ins = object(ins, ipath, "`inputs`")?;
        let mut has_const = HashSet::new();
        // Wires share the ids of the nodes they join where those exist already (one
        // allocation per id, not one per wire end).
        let id_of = |g: &Graph, id: &str| g.node(id).map(|n| n.id.clone());
        let this = id_of(&self.graph, name);
        for (port, j) in ins {
            let vpath = child(ipath, port);
            if let Some(a) = super::structure::curve(j, &vpath, false)? {
                self.structure.curves.insert(PortRef::new(name, port), a);
                continue;
            }
            if let Some(froms) = wire_list(j, &vpath)? {
                for from in froms {
                    self.graph.connect(from, PortRef::new(name, port));
                }
                continue;
            }
            let source = match self.blobs.read(j, &vpath)? {
                Some(v) => InputSource::Const(v),
                None => convert::decode_input(j, input_type(self.registry, op, port), &vpath)?,
            };
            match source {
                InputSource::Wire(mut from) => {
                    if let Some(id) = id_of(&self.graph, from.node.as_str()) {
                        from.node = id;
                    }
                    let to = match &this {
                        Some(id) => PortRef {
                            node: id.clone(),
                            port: port.clone(),
                        },
                        None => PortRef::new(name, port),
                    };
                    self.graph.connect(from, to);
                }
                InputSource::Const(v) => {
                    // A graph holds one constant per port; a second one (here, or a param of
                    // the same name that gave the input its constant) has nowhere to go.
                    let given = self
                        .graph
                        .node(name)
                        .is_some_and(|n| n.consts.contains_key(port.as_str()));
                    if !has_const.insert(port.as_str()) || given {
                        return Err(LoadError::format(
                            &vpath,
                            format!("input `{port}` is given two constants"),
                            Some("keep one".into()),
                        ));
                    }
                    self.graph
                        .set_const(name, port, v)
                        .map_err(|e| graph_error(&vpath, e))?;
                }
            }
        }
        Ok(())
    }

    /// Add graph output `name` (an `output` node) wired from the port `source` names: a
    /// reference, or `{"from": reference, "color": "srgb" | "data"}`. The colour space it
    /// states, if any.
    fn add_output(&mut self, name: &str, source: &Json) -> Result<Option<ColorSpace>, LoadError> {
        let path = child("outputs", name);
        let must = |found: &str| {
            LoadError::format(
                &path,
                format!("output `{name}` must name a port as a string, found {found}"),
                Some(format!(
                    "write \"{name}\": \"node.port\", or \"{name}\": {{\"from\": \"node.port\", \"color\": \"data\"}}"
                )),
            )
        };
        let (from, space) = match source {
            Json::Str(s) => (s, None),
            Json::Object(entries) => {
                check_keys(entries, &path, &format!("output `{name}`"), &OUTPUT_KEYS)?;
                let from = match get(entries, "from") {
                    Some(Json::Str(s)) => s,
                    Some(other) => return Err(must(other.kind())),
                    None => return Err(must("no `from`")),
                };
                let space = match get(entries, "color") {
                    None => None,
                    Some(Json::Str(c)) => Some(ColorSpace::parse(c).ok_or_else(|| {
                        LoadError::format(
                            &child(&path, "color"),
                            format!(
                                "output `{name}`: `color` must be one of {}, found `{c}`",
                                ColorSpace::NAMES.join(", ")
                            ),
                            Some("`srgb` (the default) encodes colour for display; `data` writes the values as they are (normal and height maps, masks)".into()),
                        )
                    })?),
                    Some(other) => {
                        return Err(LoadError::format(
                            &child(&path, "color"),
                            format!(
                                "output `{name}`: `color` must be a string, found {}",
                                other.kind()
                            ),
                            None,
                        ));
                    }
                };
                (from, space)
            }
            other => return Err(must(other.kind())),
        };
        self.graph
            .add_node(name, OUTPUT_OP)
            .map_err(|e| graph_error(&path, e))?;
        self.graph
            .connect(PortRef::parse(from), PortRef::new(name, "value"));
        Ok(space)
    }
}

/// The sources of `{"wires": ["a", "b.out"]}` (several wires into one collective input), or
/// `None` for any other entry.
fn wire_list(j: &Json, path: &str) -> Result<Option<Vec<PortRef>>, LoadError> {
    let Json::Object(entries) = j else {
        return Ok(None);
    };
    let [(k, list)] = entries.as_slice() else {
        return Ok(None);
    };
    if k != "wires" {
        return Ok(None);
    }
    let hint = || Some(r#"write {"wires": ["a", "b.out"]}"#.to_string());
    let Json::Array(items) = list else {
        return Err(LoadError::format(
            &child(path, "wires"),
            format!(
                "`wires` must be an array of port names, found {}",
                list.kind()
            ),
            hint(),
        ));
    };
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        match item {
            Json::Str(s) => out.push(PortRef::parse(s)),
            other => {
                return Err(LoadError::format(
                    &format!("{}[{i}]", child(path, "wires")),
                    format!("a wire names a port as a string, found {}", other.kind()),
                    hint(),
                ));
            }
        }
    }
    Ok(Some(out))
}

/// A graph input op of a heavy type registered by a domain crate (`input.audio` for type
/// `audio`): the op `input.<t>` whose output is of the heavy type `t`.
fn heavy_input_op<'r>(registry: &'r Registry, t: &str) -> Option<(ValueType, &'r str)> {
    let op = registry.get(&format!("input.{t}"))?;
    let spec = op.spec();
    match spec.outputs.first()?.ty {
        ty @ ValueType::Heavy(n) if n == t => Some((ty, &*spec.id)),
        _ => None,
    }
}

/// The declared `type` of a graph input and the op of its node: a plain type of
/// [`INPUT_TYPES`], or a heavy type whose domain registered an `input.<type>` op.
fn input_type_and_op<'r>(
    registry: &'r Registry,
    entries: Entries<'_>,
    path: &str,
    name: &str,
) -> Result<(ValueType, &'r str), LoadError> {
    let mut types: Vec<&str> = INPUT_TYPES.iter().map(|(_, t)| t.name()).collect();
    types.extend(["list", "list<T>"]);
    match get(entries, "type") {
        Some(Json::Str(t)) => ValueType::parse_plain(t)
            .and_then(|ty| input_op_for(ty).map(|op| (ty, op)))
            .or_else(|| heavy_input_op(registry, t))
            .ok_or_else(|| {
                LoadError::format(
                    &child(path, "type"),
                    format!("graph inputs cannot have type `{t}`"),
                    Some(format!("one of: {}", types.join(", "))),
                )
            }),
        Some(other) => Err(LoadError::format(
            &child(path, "type"),
            format!("`type` must be a string, found {}", other.kind()),
            Some(format!("one of: {}", types.join(", "))),
        )),
        None => Err(LoadError::format(
            path,
            format!("input `{name}` has no `type`"),
            Some(format!("add \"type\": one of {}", types.join(", "))),
        )),
    }
}

/// The `op` of node `name`, which must be a string.
fn node_op<'a>(entries: Entries<'a>, path: &str, name: &str) -> Result<&'a str, LoadError> {
    match get(entries, "op") {
        Some(Json::Str(op)) => Ok(op.as_str()),
        Some(other) => Err(LoadError::format(
            &child(path, "op"),
            format!("`op` must be a string, found {}", other.kind()),
            Some("`kiln ops` lists the op ids".into()),
        )),
        None => Err(LoadError::format(
            path,
            format!("node `{name}` has no `op`"),
            Some(r#"add "op": "<op id>"; `kiln ops` lists them"#.into()),
        )),
    }
}
