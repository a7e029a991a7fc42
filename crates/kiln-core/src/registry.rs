//! The op registry: op ids to ops.

use crate::op::Op;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Registering failed.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum RegistryError {
    /// The id is taken.
    #[error("op `{0}` is already registered")]
    Duplicate(String),
}

/// Maps op ids to ops. Cheap to clone (ops are shared).
#[derive(Clone, Default)]
pub struct Registry {
    ops: BTreeMap<String, Arc<dyn Op>>,
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
