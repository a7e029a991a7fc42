//! Reordering lists: `list.sort`, `list.filter`, `list.reverse`.

use super::same_list;
use kiln_core::list_type::list_of;
use kiln_core::op;
use kiln_core::op::OpError;
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::value::{Value, ValueType};
use std::cmp::Ordering;

/// How two sort keys compare: numbers by value (floats in IEEE total order, so NaN sorts
/// after every number), strings by bytes, bools false first. Keys of different kinds do not
/// compare.
fn key_cmp(a: &Value, b: &Value) -> Option<Ordering> {
    Some(match (a, b) {
        (Value::Int(x), Value::Int(y)) => x.cmp(y),
        (Value::Str(x), Value::Str(y)) => x.cmp(y),
        (Value::Bool(x), Value::Bool(y)) => x.cmp(y),
        _ => a.as_f64()?.total_cmp(&b.as_f64()?),
    })
}

/// The sort keys of `list`: the `keys` list when given, else each element's field `field`
/// when that is set, else the elements themselves.
fn sort_keys<'a>(
    list: &'a [Value],
    keys: &'a Value,
    field: &str,
) -> Result<Vec<&'a Value>, OpError> {
    if let Value::List(k) = keys {
        if k.len() != list.len() {
            return Err(OpError::input(
                1,
                format!(
                    "{} keys for a list of {} elements; give one key per element",
                    k.len(),
                    list.len()
                ),
            ));
        }
        return Ok(k.iter().collect());
    }
    if field.is_empty() {
        return Ok(list.iter().collect());
    }
    list.iter()
        .enumerate()
        .map(|(i, v)| match v.as_record().and_then(|r| r.get(field)) {
            Some(k) => Ok(k),
            None => Err(OpError::input(
                0,
                format!("element {i} ({}) has no field `{field}`", v.type_name()),
            )),
        })
        .collect()
}

/// `list` sorted (stably) by `keys` (one per element) when wired, else by each record's
/// `field` when set, else by the elements; numbers by value, strings by bytes.
#[op(
    "list.sort",
    out = "the sorted list",
    out_type = ValueType::List,
    infer = same_list
)]
pub fn sort(
    #[input("the list")] list: &[Value],
    #[input(
        "a key per element (optional)",
        ty = ValueType::List,
        default = Value::Empty
    )]
    keys: &Value,
    #[param("sort records by this field", default = "")] field: &str,
    #[param("largest first", default = false)] descending: bool,
) -> Result<Value, OpError> {
    let keys = sort_keys(list, keys, field)?;
    // Every key must compare with the first before sorting.
    if let Some(first) = keys.first()
        && let Some((i, bad)) = keys
            .iter()
            .enumerate()
            .find(|(_, k)| key_cmp(first, k).is_none())
    {
        return Err(OpError::input(
            0,
            format!(
                "sort key {i} is {}, which does not compare with key 0 ({}); keys must be all numbers, all strings or all bools",
                bad.type_name(),
                first.type_name()
            ),
        ));
    }
    let mut order: Vec<usize> = (0..list.len()).collect();
    // Stable: equal keys keep their order, ascending or descending.
    order.sort_by(|&a, &b| {
        let o = key_cmp(keys[a], keys[b]).unwrap_or(Ordering::Equal);
        if descending { o.reverse() } else { o }
    });
    Ok(Value::list(order.into_iter().map(|i| list[i].clone())))
}

/// The elements of `list` whose `mask` entry is true (`mask` has one bool per element).
#[op("list.filter", out = "the elements kept", infer = same_list)]
pub fn filter(
    #[input("the list")] list: &[Value],
    #[input("a bool per element", ty = list_of(ValueType::Bool))] mask: &[Value],
) -> Result<Vec<Value>, OpError> {
    if list.len() != mask.len() {
        return Err(OpError::input(
            1,
            format!(
                "the mask has {} entries for a list of {} elements",
                mask.len(),
                list.len()
            ),
        ));
    }
    let mut kept = Vec::new();
    for (i, (v, k)) in list.iter().zip(mask.iter()).enumerate() {
        match k {
            Value::Bool(true) => kept.push(v.clone()),
            Value::Bool(false) => {}
            other => {
                return Err(OpError::input(
                    1,
                    format!("mask entry {i} is {}, not a bool", other.type_name()),
                ));
            }
        }
    }
    Ok(kept)
}

/// The elements of `list`, last first.
#[op("list.reverse", out = "reversed", out_type = ValueType::List, infer = same_list)]
pub fn reverse(#[input("the list")] list: &[Value]) -> Value {
    Value::list(list.iter().rev().cloned())
}

/// Register the ops of this file.
pub(super) fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(SortOp::new())?;
    reg.register(FilterOp::new())?;
    reg.register(ReverseOp::new())
}

#[cfg(test)]
mod tests {
    use super::super::testing::{floats, ints, run};
    use kiln_core::value::Value;

    #[test]
    fn sort_by_values_keys_and_fields_stably() {
        let by_value = run("list.sort", &[floats(&[2.5, -1.0, 2.0])], &[]).unwrap();
        assert_eq!(by_value[0], floats(&[-1.0, 2.0, 2.5]));
        // Keys 3,1,2,1: the two 1s keep their order (b before d).
        let l = Value::list(["a", "b", "c", "d"].map(Value::str));
        let s = run("list.sort", &[l.clone(), ints(&[3, 1, 2, 1])], &[]).unwrap();
        assert_eq!(s[0], Value::list(["b", "d", "c", "a"].map(Value::str)));
        let d = run(
            "list.sort",
            &[l.clone(), ints(&[3, 1, 2, 1])],
            &[Value::str(""), Value::Bool(true)],
        )
        .unwrap();
        assert_eq!(d[0], Value::list(["a", "c", "b", "d"].map(Value::str)));
        let r =
            |n: &str, s: f64| Value::record([("name", Value::str(n)), ("size", Value::Float(s))]);
        let recs = Value::list([r("x", 3.0), r("y", 1.0), r("z", 2.0)]);
        let f = run("list.sort", &[recs, Value::Empty], &[Value::str("size")]).unwrap();
        assert_eq!(f[0], Value::list([r("y", 1.0), r("z", 2.0), r("x", 3.0)]));
        let missing = run(
            "list.sort",
            &[Value::list([r("x", 1.0)]), Value::Empty],
            &[Value::str("colour")],
        )
        .unwrap_err();
        assert!(missing.message.contains("`colour`"));
        let mixed = run(
            "list.sort",
            &[Value::list([Value::Int(1), Value::str("a")])],
            &[],
        );
        assert!(mixed.unwrap_err().message.contains("key 1"));
        let count = run("list.sort", &[ints(&[1, 2]), ints(&[1])], &[]).unwrap_err();
        assert!(count.message.contains("1 keys for a list of 2"));
    }

    #[test]
    fn filter_and_reverse() {
        let mask = Value::list([true, false, true].map(Value::Bool));
        let f = run("list.filter", &[ints(&[1, 2, 3]), mask], &[]).unwrap();
        assert_eq!(f[0], ints(&[1, 3]));
        let short = run(
            "list.filter",
            &[ints(&[1, 2]), Value::list([Value::Bool(true)])],
            &[],
        );
        assert!(
            short
                .unwrap_err()
                .message
                .contains("1 entries for a list of 2")
        );
        let not_bool = run("list.filter", &[ints(&[1]), ints(&[1])], &[]);
        assert!(not_bool.unwrap_err().message.contains("entry 0"));
        assert_eq!(
            run("list.reverse", &[ints(&[1, 2, 3])], &[]).unwrap()[0],
            ints(&[3, 2, 1])
        );
    }
}
