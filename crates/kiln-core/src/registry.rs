//! The op registry: op ids to ops (and to the signal ops among them), and heavy type names to
//! their binary codecs.

use crate::codec::{CodecConflict, Codecs, HeavyCodec};
use crate::op::Op;
use crate::signal::{SignalOp, SignalOpFace};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Registering failed.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum RegistryError {
    /// The id is taken.
    #[error("op `{0}` is already registered")]
    Duplicate(String),
    /// A codec's heavy type or tag is taken (see [`Registry::register_codec`]).
    #[error(transparent)]
    Codec(#[from] CodecConflict),
}

/// Maps op ids to ops, and heavy types to their codecs. Cheap to clone (ops and codecs are
/// shared).
#[derive(Clone, Default)]
pub struct Registry {
    ops: BTreeMap<String, Arc<dyn Op>>,
    /// The signal ops, by id (each is in `ops` too, through its [`Op`] face).
    signals: BTreeMap<String, Arc<dyn SignalOp>>,
    codecs: Codecs,
}

impl Registry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }
    /// Register an op; an id registered twice is an error.
    pub fn register(&mut self, op: impl Op) -> Result<(), RegistryError> {
        self.register_arc(Arc::new(op))
    }
    /// Register a shared op.
    pub fn register_arc(&mut self, op: Arc<dyn Op>) -> Result<(), RegistryError> {
        let id = op.spec().id.to_string();
        if self.ops.contains_key(&id) {
            return Err(RegistryError::Duplicate(id));
        }
        self.ops.insert(id, op);
        Ok(())
    }
    /// Register a signal op (see [`crate::signal`]): the streaming evaluator finds it with
    /// [`signal`](Self::signal), and everything else sees it as an [`Op`] derived from it
    /// (its spec; an `execute` that says only the streaming evaluator runs it).
    pub fn register_signal(&mut self, op: impl SignalOp) -> Result<(), RegistryError> {
        self.register_signal_arc(Arc::new(op))
    }
    /// Register a shared signal op.
    pub fn register_signal_arc(&mut self, op: Arc<dyn SignalOp>) -> Result<(), RegistryError> {
        let id = op.spec().id.to_string();
        self.register_arc(Arc::new(SignalOpFace(op.clone())))?;
        self.signals.insert(id, op);
        Ok(())
    }
    /// Look a signal op up.
    pub fn signal(&self, id: &str) -> Option<&Arc<dyn SignalOp>> {
        self.signals.get(id)
    }
    /// Register the binary codec of a heavy type (see [`crate::codec`]); a type or a tag
    /// registered twice is an error.
    pub fn register_codec(&mut self, codec: impl HeavyCodec) -> Result<(), RegistryError> {
        Ok(self.codecs.add(Arc::new(codec))?)
    }
    /// The codec of heavy type `type_name`, if one is registered.
    pub fn codec(&self, type_name: &str) -> Option<&dyn HeavyCodec> {
        self.codecs.for_type(type_name)
    }
    /// Every registered codec.
    pub fn codecs(&self) -> &Codecs {
        &self.codecs
    }
    /// Look an op up.
    pub fn get(&self, id: &str) -> Option<&Arc<dyn Op>> {
        self.ops.get(id)
    }
    /// All ops, sorted by id.
    pub fn iter(&self) -> impl Iterator<Item = &Arc<dyn Op>> {
        self.ops.values()
    }
    /// Number of ops.
    pub fn len(&self) -> usize {
        self.ops.len()
    }
    /// Whether empty.
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }
    /// Ids close to `id` (for "did you mean" hints): same suffix or small edit distance.
    pub fn suggest(&self, id: &str) -> Option<&str> {
        let tail = id.rsplit('.').next().unwrap_or(id);
        self.ops
            .keys()
            .map(|k| {
                (
                    edit_distance(k, id)
                        .min(edit_distance(k.rsplit('.').next().unwrap_or(k), tail) + 1),
                    k,
                )
            })
            .filter(|(d, _)| *d <= 3)
            .min()
            .map(|(_, k)| k.as_str())
    }
}

/// Levenshtein distance (small strings only).
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + (ca != *cb) as usize)
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}
