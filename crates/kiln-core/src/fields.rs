//! [`Fields`]: the params or the inline constants of a graph node, a small map from names to
//! values kept as one vector sorted by name.
//!
//! A node sets a handful of params at most, and a graph may have hundreds of thousands of
//! nodes: a `BTreeMap` takes a whole tree node (room for eleven entries, some 700 bytes for
//! values) for the first entry, where a vector takes room for what it holds. Lookups are a
//! binary search; iteration is in name order, as a `BTreeMap`'s was, so whatever walks the
//! fields (keys, saved files, hashes) sees the same order.
//!
//! ```
//! use kiln_core::graph::Fields;
//! use kiln_core::value::Value;
//!
//! let mut f = Fields::new();
//! assert_eq!(f.insert("width".into(), Value::Int(8)), None);
//! f.insert("height".into(), Value::Int(4));
//! assert_eq!(f.insert("width".into(), Value::Int(16)), Some(Value::Int(8)));
//! assert_eq!(f.keys().collect::<Vec<_>>(), ["height", "width"]);
//! assert_eq!(f.get("width"), Some(&Value::Int(16)));
//! assert_eq!(f.remove("height"), Some(Value::Int(4)));
//! assert_eq!(f.len(), 1);
//! ```

use crate::value::Value;
use std::fmt;

/// Values by name, sorted by name (see the module docs).
#[derive(Clone, Default, PartialEq)]
pub struct Fields(Vec<(String, Value)>);

impl Fields {
    /// No fields.
    pub fn new() -> Self {
        Fields(Vec::new())
    }

    fn find(&self, key: &str) -> Result<usize, usize> {
        self.0.binary_search_by(|(k, _)| k.as_str().cmp(key))
    }

    /// The value named `key`.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.find(key).ok().map(|i| &self.0[i].1)
    }

    /// The value named `key`, to change it.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Value> {
        self.find(key).ok().map(|i| &mut self.0[i].1)
    }

    /// Whether a value is named `key`.
    pub fn contains_key(&self, key: &str) -> bool {
        self.find(key).is_ok()
    }

    /// Set `key` to `value`; the value it had, if any.
    pub fn insert(&mut self, key: String, value: Value) -> Option<Value> {
        match self.find(&key) {
            Ok(i) => Some(std::mem::replace(&mut self.0[i].1, value)),
            Err(i) => {
                // Room for one more at a time: a node sets a few fields, and a vector's
                // first growth would make room for four.
                if self.0.len() == self.0.capacity() && self.0.len() < 8 {
                    self.0.reserve_exact(1);
                }
                self.0.insert(i, (key, value));
                None
            }
        }
    }

    /// Remove `key`; the value it had, if any.
    pub fn remove(&mut self, key: &str) -> Option<Value> {
        self.find(key).ok().map(|i| self.0.remove(i).1)
    }

    /// Every name and value, in name order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&String, &Value)> + ExactSizeIterator {
        self.0.iter().map(|(k, v)| (k, v))
    }

    /// Every name, in order.
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &String> + ExactSizeIterator {
        self.0.iter().map(|(k, _)| k)
    }

    /// Every value, in name order.
    pub fn values(&self) -> impl DoubleEndedIterator<Item = &Value> + ExactSizeIterator {
        self.0.iter().map(|(_, v)| v)
    }

    /// How many values.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Debug for Fields {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl std::ops::Index<&str> for Fields {
    type Output = Value;
    /// The value named `key`; panics when there is none, as a map's index does.
    fn index(&self, key: &str) -> &Value {
        match self.get(key) {
            Some(v) => v,
            None => panic!("no field named `{key}`"),
        }
    }
}

impl<'a> IntoIterator for &'a Fields {
    type Item = (&'a String, &'a Value);
    type IntoIter = std::iter::Map<
        std::slice::Iter<'a, (String, Value)>,
        fn(&'a (String, Value)) -> (&'a String, &'a Value),
    >;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter().map(|(k, v)| (k, v))
    }
}

impl IntoIterator for Fields {
    type Item = (String, Value);
    type IntoIter = std::vec::IntoIter<(String, Value)>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl FromIterator<(String, Value)> for Fields {
    /// Later values of a repeated name replace earlier ones, as in a map.
    fn from_iter<I: IntoIterator<Item = (String, Value)>>(iter: I) -> Self {
        let mut f = Fields::new();
        f.extend(iter);
        f
    }
}

impl Extend<(String, Value)> for Fields {
    fn extend<I: IntoIterator<Item = (String, Value)>>(&mut self, iter: I) {
        for (k, v) in iter {
            self.insert(k, v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_stay_sorted_whatever_the_order_of_insertion() {
        let names = ["m", "b", "z", "a", "q", "b"];
        let f: Fields = names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.to_string(), Value::Int(i as i64)))
            .collect();
        assert_eq!(f.keys().collect::<Vec<_>>(), ["a", "b", "m", "q", "z"]);
        // The later `b` (index 5) replaced the first.
        assert_eq!(f.get("b"), Some(&Value::Int(5)));
        assert_eq!(f.get("c"), None);
        assert!(f.contains_key("z") && !f.contains_key(""));
    }

    #[test]
    fn equal_fields_are_equal_whatever_the_order_they_were_set_in() {
        let mut a = Fields::new();
        a.insert("x".into(), Value::Float(1.0));
        a.insert("y".into(), Value::Float(2.0));
        let mut b = Fields::new();
        b.insert("y".into(), Value::Float(2.0));
        b.insert("x".into(), Value::Float(1.0));
        assert_eq!(a, b);
        *b.get_mut("x").unwrap() = Value::Float(3.0);
        assert_ne!(a, b);
    }
}
