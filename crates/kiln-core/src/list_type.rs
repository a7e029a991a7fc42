//! Typed list types: `list<T>` for any element type `T`, itself possibly a list.
//!
//! [`ValueType`] is `Copy`, so a typed list refers to its element type through a
//! `&'static ValueType`. Each distinct element type is interned once, in a global table, with
//! the type's name (`list<float>`, `list<list<image>>`), so building the same type twice gives
//! the same reference and the name is a `&'static str` like every other type name.

use crate::value::ValueType;
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

/// How many `list<...>` may nest in one type name (`list<list<float>>` nests 2).
pub const MAX_LIST_NESTING: usize = 16;

/// Per element type: the interned element and the list type's name.
type Table = HashMap<ValueType, (&'static ValueType, &'static str)>;

fn table() -> &'static Mutex<Table> {
    static TABLE: OnceLock<Mutex<Table>> = OnceLock::new();
    TABLE.get_or_init(|| Mutex::new(HashMap::new()))
}

/// The interned element and name of `list<elem>` (each distinct element type is leaked once:
/// the table only grows by the types graphs name, a handful per program).
fn intern(elem: ValueType) -> (&'static ValueType, &'static str) {
    // A poisoned lock only means a panic elsewhere while inserting; the table stays valid.
    let lock = || table().lock().unwrap_or_else(|e| e.into_inner());
    if let Some(&found) = lock().get(&elem) {
        return found;
    }
    // The element's own name may need the table (a nested list): taken before locking it.
    let name = format!("list<{}>", elem.name());
    *lock()
        .entry(elem)
        .or_insert_with(|| (Box::leak(Box::new(elem)), Box::leak(name.into_boxed_str())))
}

/// The type `list<elem>`.
pub fn list_of(elem: ValueType) -> ValueType {
    ValueType::ListOf(intern(elem).0)
}

/// The name of `list<elem>`.
pub(crate) fn list_name(elem: ValueType) -> &'static str {
    intern(elem).1
}

/// How deep `list<...>` nests in `t` (0 for a type that is not a typed list).
pub fn nesting(t: ValueType) -> usize {
    let mut n = 0;
    let mut cur = t;
    while let ValueType::ListOf(e) = cur {
        n += 1;
        cur = *e;
    }
    n
}

/// Parse a type name with any number of `list<...>` around a name `leaf` can read (plain
/// types, or heavy ones a caller knows). `None` when the name is malformed, nests deeper than
/// [`MAX_LIST_NESTING`], or `leaf` does not know the innermost name. Parsed without recursion.
pub fn parse_with(s: &str, leaf: impl Fn(&str) -> Option<ValueType>) -> Option<ValueType> {
    let mut inner = s.trim();
    let mut depth = 0;
    while let Some(rest) = inner.strip_prefix("list<") {
        inner = rest.strip_suffix('>')?.trim();
        depth += 1;
        if depth > MAX_LIST_NESTING {
            return None;
        }
    }
    let mut t = leaf(inner)?;
    for _ in 0..depth {
        t = list_of(t);
    }
    Some(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interned_once_and_named() {
        let a = list_of(ValueType::Float);
        let b = list_of(ValueType::Float);
        match (a, b) {
            (ValueType::ListOf(x), ValueType::ListOf(y)) => assert!(std::ptr::eq(x, y)),
            _ => panic!("list_of makes a typed list"),
        }
        assert_eq!(a.name(), "list<float>");
        assert_eq!(list_of(a).name(), "list<list<float>>");
        assert_eq!(nesting(list_of(a)), 2);
    }

    #[test]
    fn parses_nested_and_refuses_malformed() {
        let p = |s: &str| parse_with(s, ValueType::parse_plain);
        assert_eq!(p("list<float>"), Some(list_of(ValueType::Float)));
        assert_eq!(
            p("list<list<record>>"),
            Some(list_of(list_of(ValueType::Record)))
        );
        assert_eq!(p("list<float"), None);
        assert_eq!(p("list<nope>"), None);
        let deep = format!("{}float{}", "list<".repeat(17), ">".repeat(17));
        assert_eq!(p(&deep), None);
        let ok = format!("{}float{}", "list<".repeat(16), ">".repeat(16));
        assert_eq!(p(&ok).map(nesting), Some(16));
    }
}
