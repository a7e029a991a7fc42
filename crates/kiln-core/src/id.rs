//! Node ids: the names nodes are known by in graphs, plans, errors and reports. At the
//! bottom of the crate: it knows nothing else.

use std::fmt;
use std::sync::Arc;

/// A node id: the name the graph's author chose.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(Arc<str>);

impl NodeId {
    /// The id as a string.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}
impl fmt::Debug for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", &*self.0)
    }
}
impl fmt::Display for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
impl From<&str> for NodeId {
    fn from(s: &str) -> Self {
        NodeId(Arc::from(s))
    }
}
impl From<String> for NodeId {
    fn from(s: String) -> Self {
        NodeId(Arc::from(s))
    }
}
impl std::borrow::Borrow<str> for NodeId {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl std::ops::Deref for NodeId {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}
