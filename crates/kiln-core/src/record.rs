//! Records: values with named fields, the entities a list of records carries (a name, a
//! colour, a size, ...).
//!
//! A record's fields are kept sorted by name, so two records with the same fields are the
//! same value whatever order they were built in, and a field is found by binary search. A
//! record is immutable and shared behind an [`Arc`](std::sync::Arc) in
//! [`Value::Record`](crate::value::Value::Record): setting a field makes a new record and
//! leaves the old one as it was.

use crate::value::Value;
use std::sync::Arc;

/// Named fields, sorted by name, each name once.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Record {
    fields: Vec<(Arc<str>, Value)>,
}

impl Record {
    /// A record of `fields`; when a name appears more than once, its last value is kept.
    pub fn new(fields: impl IntoIterator<Item = (Arc<str>, Value)>) -> Record {
        let mut v: Vec<(Arc<str>, Value)> = fields.into_iter().collect();
        // A stable sort keeps equal names in the order given; the last of each is kept.
        v.sort_by(|a, b| a.0.cmp(&b.0));
        let mut out: Vec<(Arc<str>, Value)> = Vec::with_capacity(v.len());
        for (k, val) in v {
            match out.last_mut() {
                Some(last) if last.0 == k => last.1 = val,
                _ => out.push((k, val)),
            }
        }
        Record { fields: out }
    }

    /// The fields, sorted by name.
    pub fn fields(&self) -> &[(Arc<str>, Value)] {
        &self.fields
    }

    /// The value of field `name`.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.fields
            .binary_search_by(|(k, _)| (**k).cmp(name))
            .ok()
            .map(|i| &self.fields[i].1)
    }

    /// A copy with field `name` set to `value` (added when absent). The values of the other
    /// fields are shared, not copied.
    pub fn with(&self, name: &str, value: Value) -> Record {
        let mut fields = self.fields.clone();
        match fields.binary_search_by(|(k, _)| (**k).cmp(name)) {
            Ok(i) => fields[i].1 = value,
            Err(i) => fields.insert(i, (Arc::from(name), value)),
        }
        Record { fields }
    }

    /// The field names, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.fields.iter().map(|(k, _)| &**k)
    }

    /// Number of fields.
    pub fn len(&self) -> usize {
        self.fields.len()
    }

    /// Whether the record has no fields.
    pub fn is_empty(&self) -> bool {
        self.fields.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(pairs: &[(&str, i64)]) -> Record {
        Record::new(pairs.iter().map(|(k, v)| (Arc::from(*k), Value::Int(*v))))
    }

    #[test]
    fn fields_sorted_last_duplicate_wins() {
        let a = r(&[("size", 2), ("name", 1), ("size", 3)]);
        assert_eq!(a.names().collect::<Vec<_>>(), ["name", "size"]);
        assert_eq!(a.get("size"), Some(&Value::Int(3)));
        assert_eq!(a.get("colour"), None);
        assert_eq!(a, r(&[("name", 1), ("size", 3)]));
    }

    #[test]
    fn with_adds_or_replaces_and_leaves_the_original() {
        let a = r(&[("b", 1)]);
        let b = a.with("a", Value::Int(0)).with("b", Value::Int(5));
        assert_eq!(b.names().collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(b.get("b"), Some(&Value::Int(5)));
        assert_eq!(a.get("b"), Some(&Value::Int(1)));
        assert_eq!(a.len(), 1);
    }
}
