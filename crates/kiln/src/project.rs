//! [`Project`]: a graph file opened with everything it calls, its inputs, and the plan kept
//! while nothing it stands on changes.

use crate::cache_dir::CacheDir;
use crate::error::ProjectError;
use crate::evaluator_kind::memo_budget;
use crate::input_value::{input_colour, input_file, input_value};
use crate::interface::{InputInfo, OutputInfo};
use crate::node_port::NodePort;
use kiln_core::cache::{Lru, Store};
use kiln_core::prelude::*;
use kiln_doc::assets::{AssetError, DocumentFile, LibraryPath};
use kiln_io::image_files::ColorSpace;
use kiln_lower::lower::{AnimatedParam, LowerReport, Lowerer};
use kiln_std::graph_io::{INPUT_PREFIX, OUTPUT_OP};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// How a project is opened: the ops it may use and where its calls are looked up.
#[derive(Clone, Default)]
pub struct OpenOptions {
    registry: Option<Registry>,
    libs: Vec<PathBuf>,
}

impl OpenOptions {
    /// Kiln's every op ([`crate::registry`]), calls looked up beside the file, then in
    /// `KILN_PATH`, then in the graphs Kiln ships.
    pub fn new() -> OpenOptions {
        OpenOptions::default()
    }
    /// Cook with `registry` instead of Kiln's own (add ops of your own to
    /// [`crate::registry`]'s).
    pub fn registry(mut self, registry: Registry) -> OpenOptions {
        self.registry = Some(registry);
        self
    }
    /// Look calls up in `dir` too, after the file's own folder (as `--lib DIR`).
    pub fn lib(mut self, dir: impl Into<PathBuf>) -> OpenOptions {
        self.libs.push(dir.into());
        self
    }
    /// Open the graph file at `path` and every graph it calls.
    pub fn open(self, path: impl AsRef<Path>) -> Result<Project, ProjectError> {
        let path = path.as_ref();
        let registry = self.registry.unwrap_or_else(crate::registry);
        let libs = LibraryPath::with_env(&self.libs);
        let doc = kiln_doc::assets::read_document(path, &registry, &libs).map_err(|e| match e {
            // The top file's own failure names it once; a called file's is named inside.
            AssetError::Load { source, path: p } if p == path.display().to_string() => {
                ProjectError::File {
                    path: path.to_path_buf(),
                    source: Box::new(source),
                }
            }
            other => ProjectError::Load {
                path: path.to_path_buf(),
                source: Box::new(other),
            },
        })?;
        let mut p = Project::new(
            registry,
            doc,
            path.display().to_string(),
            Some(path.to_path_buf()),
        );
        p.libs = libs;
        p.dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        Ok(p)
    }
    /// Open graph text that is not a file (`origin` names it in errors, `dir` is where its
    /// calls are looked up first).
    pub fn open_text(self, text: &str, origin: &str, dir: &Path) -> Result<Project, ProjectError> {
        let registry = self.registry.unwrap_or_else(crate::registry);
        let libs = LibraryPath::with_env(&self.libs);
        let doc = document_of_text(&registry, text, origin, dir, &libs)?;
        let mut p = Project::new(registry, doc, origin.to_string(), None);
        p.libs = libs;
        p.dir = dir.to_path_buf();
        Ok(p)
    }
}

/// The document of graph text `text` (named `origin` in errors), its calls looked up in
/// `dir`, then `libs`.
fn document_of_text(
    registry: &Registry,
    text: &str,
    origin: &str,
    dir: &Path,
    libs: &LibraryPath,
) -> Result<DocumentFile, ProjectError> {
    let file = kiln_doc::graph_file::load_graph_in(text, registry, dir).map_err(|e| {
        ProjectError::Text {
            origin: origin.to_string(),
            source: Box::new(e),
        }
    })?;
    let key = kiln_doc::assets::text_key(text.as_bytes());
    kiln_doc::assets::document_of(file, dir, registry, libs, key).map_err(|e| ProjectError::Load {
        path: PathBuf::from(origin),
        source: Box::new(e),
    })
}

/// The clock a plan is made at (an animated param is sampled there; a scope may read it).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Clock {
    /// Seconds.
    pub time: f64,
    /// Frame number.
    pub frame: i64,
}

/// A document written out flat for the evaluators, at one clock and set of inputs.
#[derive(Clone, Debug)]
pub struct Lowering {
    /// The flat graph.
    pub graph: Arc<Graph>,
    /// What the plan did, when it did anything (a file that calls nothing, has no scope and
    /// makes no choice is its own flat graph).
    pub report: Option<LowerReport>,
    /// The params animated by curves, sampled at the plan's clock.
    pub animated: Vec<AnimatedParam>,
    /// Whether the plan cooked nodes for values (their results are in the project's store,
    /// where the cook finds them).
    pub waited: bool,
    /// The graph inputs whose values the plan read (a choice, a scope's list or count): the
    /// flat graph holds for these values only.
    pub inputs_read: std::collections::BTreeSet<String>,
}

/// A graph file opened with everything it calls: the one way into Kiln for every front end
/// (the `kiln` command, Kiln Studio, library callers).
///
/// ```no_run
/// let mut p = kiln::Project::open("examples/clouds.json")?;
/// p.set_text("scale", "8")?;
/// let cooked = p.cook(&kiln::CookOptions::default())?;
/// p.write(&cooked, std::path::Path::new("out"), &kiln::OutputFiles::default())?;
/// # Ok::<(), kiln::ProjectError>(())
/// ```
pub struct Project {
    pub(crate) registry: Registry,
    pub(crate) origin: String,
    pub(crate) path: Option<PathBuf>,
    pub(crate) doc: DocumentFile,
    pub(crate) inputs: BTreeMap<String, Value>,
    pub(crate) lowerer: Lowerer,
    /// Where the plan's waits keep what they cooked, shared with the cook that follows.
    pub(crate) store: Arc<Store>,
    pub(crate) cache: Option<CacheDir>,
    /// Whether every cook keeps its results in (and reads them from) `store`, so later cooks
    /// reuse what earlier ones made (a sweep's items).
    pub(crate) shared: bool,
    /// Where the file's calls are looked up first, and next.
    dir: PathBuf,
    libs: LibraryPath,
    /// The last plan handed out, by the lowerer's plan it was made from, and whether it was
    /// found valid: a kept plan is neither copied nor validated again.
    kept: Option<KeptPlan>,
}

struct KeptPlan {
    lowered: Arc<kiln_lower::lower::Lowered>,
    planned: Lowering,
    valid: bool,
    /// The evaluators' plan of the flat graph, made from what its validation resolved (none
    /// before validation, or when the graph is valid but no tick plan: an audio loop).
    plan: Option<Arc<kiln_core::plan::Plan>>,
}

impl Project {
    fn new(registry: Registry, doc: DocumentFile, origin: String, path: Option<PathBuf>) -> Self {
        let store = Store::new(Lru::new()).with_budget(memo_budget()).shared();
        Project {
            lowerer: Lowerer::new(registry.clone()).with_store(store.clone()),
            registry,
            origin,
            path,
            doc,
            inputs: BTreeMap::new(),
            store,
            cache: None,
            shared: false,
            kept: None,
            dir: PathBuf::from("."),
            libs: LibraryPath::default(),
        }
    }

    /// Open the graph file at `path` with Kiln's every op (see [`OpenOptions`] for more).
    pub fn open(path: impl AsRef<Path>) -> Result<Project, ProjectError> {
        OpenOptions::new().open(path)
    }

    /// Keep every cook's results in the project's memory, where later cooks find them: a
    /// node whose key is unchanged is not cooked again (a sweep's items share what no swept
    /// knob reaches). The memory is bounded by the memo budget, oldest results dropped
    /// first.
    pub fn share_results(&mut self) {
        self.shared = true;
    }

    /// Cook into and from `store` (another project's, see [`Project::share_results`]), so
    /// projects on several threads share one memory of results.
    pub fn use_results_of(&mut self, store: Arc<Store>) {
        self.lowerer = Lowerer::new(self.registry.clone()).with_store(store.clone());
        self.store = store;
        self.shared = true;
        self.kept = None;
    }

    /// The ops the project cooks with.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }
    /// The graph file, when the project was opened from one.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }
    /// The name errors give the graph (its path, or what the text was called).
    pub fn origin(&self) -> &str {
        &self.origin
    }
    /// The document: the file as loaded and every call resolved.
    pub fn document(&self) -> &DocumentFile {
        &self.doc
    }
    /// The colour space the graph file gives each output that states one.
    pub fn file_colours(&self) -> &BTreeMap<String, ColorSpace> {
        &self.doc.file.meta.output_colors
    }

    /// Keep results in the persistent cache `cache` (plan-time values and cooks alike).
    pub fn set_cache(&mut self, cache: CacheDir) {
        self.lowerer = Lowerer::new(self.registry.clone()).with_store(cache.store().clone());
        self.cache = Some(cache);
    }
    /// The persistent cache, when one was set.
    pub fn cache(&self) -> Option<&CacheDir> {
        self.cache.as_ref()
    }

    /// The graph's inputs, in the file's order.
    pub fn inputs(&self) -> Vec<InputInfo> {
        let g = &self.doc.doc.graph;
        g.nodes()
            .iter()
            .filter(|n| n.op.starts_with(INPUT_PREFIX))
            .filter_map(|n| {
                let ty = self.registry.get(&n.op)?.spec().outputs.first()?.ty;
                let reaches = g
                    .wires()
                    .iter()
                    .filter(|w| w.from.node == n.id)
                    .filter_map(|w| {
                        let to = g.node(&w.to.node)?;
                        let spec = self.registry.get(&to.op)?.spec();
                        let rule = spec.inputs.iter().find(|i| i.name == w.to.port)?.rule?;
                        Some((format!("{}.{}", w.to.node, w.to.port), rule))
                    })
                    .collect();
                Some(InputInfo {
                    name: n.id.to_string(),
                    ty,
                    default: n.params.get("default").cloned(),
                    doc: self.doc.file.meta.input_docs.get(n.id.as_str()).cloned(),
                    reaches,
                })
            })
            .collect()
    }

    /// The declared inputs nothing reads: no wire leaves them in the lowering at the start
    /// (calls written out, so an input passed into a called graph counts as read) and the
    /// lowering took no choice by them. A graph input that drives nothing is most often a
    /// knob wired to nothing by mistake (`--set` on it changes no byte).
    pub fn unread_inputs(&mut self) -> Result<Vec<String>, ProjectError> {
        let lowered = self.lower(Clock::default())?;
        let g = &lowered.graph;
        Ok(self
            .inputs()
            .into_iter()
            .map(|i| i.name)
            .filter(|name| {
                !lowered.inputs_read.contains(name)
                    && !g.wires().iter().any(|w| w.from.node.as_str() == name)
            })
            .collect())
    }

    /// The graph's outputs, in the file's order.
    pub fn outputs(&self) -> Vec<OutputInfo> {
        let g = &self.doc.doc.graph;
        let types = kiln_core::validate::output_types(g, &self.registry).ok();
        g.nodes()
            .iter()
            .enumerate()
            .filter(|(_, n)| n.op == OUTPUT_OP)
            .map(|(i, n)| OutputInfo {
                name: n.id.to_string(),
                ty: types
                    .as_ref()
                    .and_then(|t| t.get(i))
                    .and_then(|t| t.first())
                    .copied(),
                colour: self
                    .file_colours()
                    .get(n.id.as_str())
                    .copied()
                    .unwrap_or_default(),
            })
            .collect()
    }

    /// The values set for inputs so far.
    pub fn input_values(&self) -> &BTreeMap<String, Value> {
        &self.inputs
    }

    fn input_type(&self, name: &str) -> Result<(ValueType, Option<ColorSpace>), ProjectError> {
        let inputs = self.inputs();
        let Some(info) = inputs.iter().find(|i| i.name == name) else {
            return Err(ProjectError::UnknownInput {
                name: name.to_string(),
                inputs: inputs.into_iter().map(|i| i.name).collect(),
            });
        };
        Ok((info.ty, input_colour(&self.doc.doc.graph, name)))
    }

    /// The port `NODE.PORT` names, when `name` is no declared input but has a dot.
    fn node_port(&self, name: &str) -> Option<Result<NodePort, ProjectError>> {
        if !name.contains('.') || self.inputs().iter().any(|i| i.name == name) {
            return None;
        }
        Some(NodePort::find(&self.doc.doc, &self.registry, name))
    }

    /// Give the port `at` names the value `value`, as an edit of the document; a wire into
    /// it is taken away (the value set stands for whatever drove it).
    fn set_port(&mut self, at: NodePort, value: Value) -> Result<(), ProjectError> {
        let edit = at.edit(value)?;
        let to = kiln_core::graph::PortRef::new(at.node.as_str(), &at.port);
        if self.doc.doc.graph.wires().iter().any(|w| w.to == to) {
            self.edit(&kiln_doc::edit::Edit::Disconnect { to })?;
        }
        self.edit(&edit)
    }

    /// Give input `name` the value `value` (an int is taken by a float input). A name that
    /// is no input but `NODE.PORT` sets that port of that node of the top graph (a param, an
    /// input's constant, a call's argument) in the document.
    pub fn set(&mut self, name: &str, value: impl Into<Value>) -> Result<(), ProjectError> {
        if let Some(at) = self.node_port(name) {
            return self.set_port(at?, value.into());
        }
        let (ty, _) = self.input_type(name)?;
        let value = ty.conform(value.into());
        if !value.value_type().is_some_and(|found| ty.accepts(found)) {
            return Err(ProjectError::InputValue {
                name: name.to_string(),
                ty,
                message: format!(
                    "expected {ty}, found {}",
                    value
                        .value_type()
                        .map_or_else(|| "an error".to_string(), |t| t.to_string())
                ),
            });
        }
        self.inputs.insert(name.to_string(), value);
        Ok(())
    }

    /// Give input `name` the value of `text`: a plain value parsed by the input's type, or
    /// `@path`, a file decoded by it (image, mesh, audio), once.
    pub fn set_text(&mut self, name: &str, text: &str) -> Result<(), ProjectError> {
        if let Some(at) = self.node_port(name) {
            let at = at?;
            let v = input_value(name, text, at.ty, None)?;
            return self.set_port(at, v);
        }
        let (ty, colour) = self.input_type(name)?;
        let v = input_value(name, text, ty, colour)?;
        self.inputs.insert(name.to_string(), v);
        Ok(())
    }

    /// Give input `name` (an image, mesh or audio input) the content of the file at `path`,
    /// decoded once.
    pub fn set_file(&mut self, name: &str, path: impl AsRef<Path>) -> Result<(), ProjectError> {
        let (ty, colour) = self.input_type(name)?;
        let v = input_file(name, path.as_ref(), ty, colour)?;
        self.inputs.insert(name.to_string(), v);
        Ok(())
    }

    /// An evaluation context at `clock` holding the inputs set.
    pub fn context(&self, clock: Clock) -> EvalContext {
        let mut ctx = EvalContext::new();
        ctx.time = clock.time;
        ctx.frame = clock.frame;
        ctx.inputs = self.inputs.clone();
        ctx
    }

    /// The document written out flat at `clock` with the inputs set: the plan kept from the
    /// last call while the document, the inputs it read and the clock it sampled are
    /// unchanged. Values the plan must cook first (a `for` over a node's list) are cooked
    /// into the project's store, where the cook finds them.
    pub fn lower(&mut self, clock: Clock) -> Result<Lowering, ProjectError> {
        let ctx = self.context(clock);
        let lowered = self
            .lowerer
            .lower(&self.doc.doc, self.doc.digest.key(), &ctx)
            .map_err(|e| ProjectError::Plan {
                origin: self.origin.clone(),
                source: Box::new(e),
            })?;
        if let Some(k) = &self.kept
            && Arc::ptr_eq(&k.lowered, &lowered)
        {
            return Ok(k.planned.clone());
        }
        let r = &lowered.report;
        let did_something = kiln_lower::lower::needs_lowering(&self.doc.doc, &self.registry)
            || r.choices > 0
            || r.pruned > 0;
        let planned = Lowering {
            graph: Arc::new(lowered.graph.clone()),
            report: did_something.then(|| r.clone()),
            animated: lowered.animated.clone(),
            waited: lowered.waited,
            inputs_read: lowered.inputs_read.clone(),
        };
        self.kept = Some(KeptPlan {
            lowered,
            planned: planned.clone(),
            valid: false,
            plan: None,
        });
        Ok(planned)
    }

    /// [`Project::plan`], refused with every problem when the flat graph is not valid (each
    /// naming its node and port). A kept plan is validated once.
    pub fn checked_lowering(&mut self, clock: Clock) -> Result<Lowering, ProjectError> {
        let planned = self.lower(clock)?;
        if self.kept.as_ref().is_some_and(|k| k.valid) {
            return Ok(planned);
        }
        // Validated once: what the check resolved becomes the plan the cook evaluates with.
        let checked = kiln_core::validate::check(&planned.graph, &self.registry)
            .map_err(|d| ProjectError::Invalid { problems: d.0 })?;
        if let Some(k) = &mut self.kept {
            k.valid = true;
            k.plan = kiln_core::plan::Plan::from_checked(checked)
                .ok()
                .map(Arc::new);
        }
        Ok(planned)
    }

    /// Hand `eval` the plan made when the flat graph was validated, when `graph` is that
    /// graph (a fused graph is another), so it does not resolve the graph again.
    pub(crate) fn adopt_checked_plan(&self, graph: &Graph, eval: &mut dyn Evaluator) {
        if let Some(plan) = self.kept.as_ref().and_then(|k| k.plan.as_ref())
            && plan.revision() == graph.revision()
        {
            eval.adopt_plan(plan.clone());
        }
    }

    /// Whether the file has structure only a plan can write out (calls, scopes, curves,
    /// entity forms); a file without is its own flat graph until a plan makes choices.
    pub fn needs_lowering(&self) -> bool {
        kiln_lower::lower::needs_lowering(&self.doc.doc, &self.registry)
    }

    /// The graph file with its graph replaced by the plan at `clock` (its metadata and
    /// structure kept): what baking and drawing work on.
    pub fn flat_file(&mut self, clock: Clock) -> Result<kiln_doc::GraphFile, ProjectError> {
        let planned = self.lower(clock)?;
        let mut file = self.doc.file.clone();
        file.graph = Graph::clone(&planned.graph);
        Ok(file)
    }

    /// Replace the document with the one `text` holds (the file saved or edited again): its
    /// calls are looked up where the project's were; the plan kept, the store and the
    /// inputs that are still declared stay. On an error nothing changes.
    pub fn replace_text(&mut self, text: &str) -> Result<(), ProjectError> {
        let doc = document_of_text(&self.registry, text, &self.origin, &self.dir, &self.libs)?;
        self.doc = doc;
        let declared: Vec<String> = self.inputs().into_iter().map(|i| i.name).collect();
        self.inputs.retain(|name, _| declared.contains(name));
        Ok(())
    }

    /// Apply `edit` to the document (a param, a constant, a wire, a node added or taken
    /// away); the next plan sees it.
    pub fn edit(&mut self, edit: &kiln_doc::edit::Edit) -> Result<(), ProjectError> {
        let doc = &mut self.doc;
        kiln_doc::edit::apply_edit_digested(&mut doc.doc, &mut doc.digest, edit).map_err(|e| {
            ProjectError::Edit {
                origin: self.origin.clone(),
                source: Box::new(e),
            }
        })?;
        self.kept = None;
        Ok(())
    }

    /// How many plans were made and reused so far.
    pub fn lower_counts(&self) -> kiln_lower::lower::LowerCounts {
        self.lowerer.counts()
    }

    /// Every validation problem of the plan at `clock` (with `rate`, the rules that depend
    /// on the sample rate too); empty when the graph is valid.
    pub fn validate(
        &mut self,
        clock: Clock,
        rate: Option<u32>,
    ) -> Result<Vec<Diagnostic>, ProjectError> {
        let planned = self.lower(clock)?;
        Ok(match rate {
            Some(r) => {
                kiln_core::validate::validate_at_rate(&planned.graph, &self.registry, f64::from(r))
            }
            None => kiln_core::validate::validate(&planned.graph, &self.registry),
        })
    }
}
