//! Reordering lists: `list.sort`, `list.filter`, `list.reverse`.

use super::list_at;
use crate::util::FnOp;
use kiln_core::op::{InputSpec, OpCall, OpError, OpSpec, OutputSpec, ParamSpec};
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

/// The sort keys of `list`: the `keys` list (input 1) when given, else each element's field
/// `field` when the param is set, else the elements themselves.
fn keys<'a>(c: &'a OpCall<'_>, list: &'a [Value]) -> Result<Vec<&'a Value>, OpError> {
    let field = c.param_str(0)?;
    if let Some(Value::List(k)) = c.inputs.get(1) {
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

fn sort(c: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
    let list = list_at(c.inputs, 0)?;
    let keys = keys(c, list)?;
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
    let descending = c.param_bool(1)?;
    let mut order: Vec<usize> = (0..list.len()).collect();
    // Stable: equal keys keep their order, ascending or descending.
    order.sort_by(|&a, &b| {
        let o = key_cmp(keys[a], keys[b]).unwrap_or(Ordering::Equal);
        if descending { o.reverse() } else { o }
    });
    out[0] = Value::list(order.into_iter().map(|i| list[i].clone()));
    Ok(())
}

pub(super) fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(
        FnOp::new(
            OpSpec::new(
                "list.sort",
                "`list` sorted (stably) by `keys` (one per element) when wired, else by each record's `field` when set, else by the elements; numbers by value, strings by bytes.",
            )
            .input(InputSpec::required("list", ValueType::List, "the list"))
            .input(InputSpec::optional(
                "keys",
                ValueType::List,
                Value::Empty,
                "a key per element (optional)",
            ))
            .param(ParamSpec::new(
                "field",
                ValueType::String,
                Value::str(""),
                "sort records by this field",
            ))
            .param(ParamSpec::new(
                "descending",
                ValueType::Bool,
                Value::Bool(false),
                "largest first",
            ))
            .output(OutputSpec::new("out", ValueType::List, "the sorted list")),
            sort,
        )
        .infer(super::same_list),
    )?;
    reg.register(
        FnOp::new(
            OpSpec::new(
                "list.filter",
                "The elements of `list` whose `mask` entry is true (`mask` has one bool per element).",
            )
            .input(InputSpec::required("list", ValueType::List, "the list"))
            .input(InputSpec::required(
                "mask",
                kiln_core::list_type::list_of(ValueType::Bool),
                "a bool per element",
            ))
            .output(OutputSpec::new("out", ValueType::List, "the elements kept")),
            |c, out| {
                let (l, m) = (list_at(c.inputs, 0)?, list_at(c.inputs, 1)?);
                if l.len() != m.len() {
                    return Err(OpError::input(
                        1,
                        format!(
                            "the mask has {} entries for a list of {} elements",
                            m.len(),
                            l.len()
                        ),
                    ));
                }
                let mut kept = Vec::new();
                for (i, (v, k)) in l.iter().zip(m.iter()).enumerate() {
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
                out[0] = Value::List(kept.into());
                Ok(())
            },
        )
        .infer(super::same_list),
    )?;
    reg.register(
        FnOp::new(
            OpSpec::new("list.reverse", "The elements of `list`, last first.")
                .input(InputSpec::required("list", ValueType::List, "the list"))
                .output(OutputSpec::new("out", ValueType::List, "reversed")),
            |c, out| {
                out[0] = Value::list(list_at(c.inputs, 0)?.iter().rev().cloned());
                Ok(())
            },
        )
        .infer(super::same_list),
    )
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
