//! Making lists: `list.make`, `list.range`, `list.concat`, `list.zip`, `list.flatten`.

use super::{check_len, list_at, same_list};
use kiln_core::list_type::list_of;
use kiln_core::op;
use kiln_core::op::OpError;
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::value::{Value, ValueType};

/// The output type of `list.concat`: the lists' type when both are of one list type.
fn infer_concat(i: &[Option<ValueType>], _: &[Value]) -> Result<Vec<ValueType>, String> {
    Ok(vec![
        match (i.first().copied().flatten(), i.get(1).copied().flatten()) {
            (Some(a), Some(b)) if a == b && a.is_list() => a,
            _ => ValueType::List,
        },
    ])
}

/// The output type of `list.flatten`: a list of the inner lists' elements.
fn infer_flatten(i: &[Option<ValueType>], _: &[Value]) -> Result<Vec<ValueType>, String> {
    let inner = i.first().copied().flatten().and_then(|t| t.element());
    Ok(vec![match inner {
        Some(ValueType::ListOf(e)) => list_of(*e),
        _ => ValueType::List,
    }])
}

/// The list of the entities queued at `items` (a collective input: several wires queue in
/// order of their source's node id, then port; a list source gives its elements).
#[op(
    "list.make",
    out = "the list",
    out_type = ValueType::List,
    infer = same_list
)]
pub fn make(
    #[input(
        "the entities",
        ty = ValueType::List,
        default = Value::List(Vec::new().into()),
        collective
    )]
    items: &Value,
) -> Result<Value, OpError> {
    list_at(items, 0)?;
    Ok(items.clone())
}

/// The ints `start`, `start + step`, ... (`count` of them).
#[op("list.range", out = "the ints", out_type = list_of(ValueType::Int))]
pub fn range(
    #[input("the first int", default = 0)] start: i64,
    #[input("how many ints (0 or more)")] count: i64,
    #[input("the difference between neighbours", default = 1)] step: i64,
) -> Result<Value, OpError> {
    if count < 0 {
        return Err(OpError::input(
            1,
            format!("count is {count}; it must be 0 or more"),
        ));
    }
    let n = check_len(1, count as u64)?;
    let mut items = Vec::with_capacity(n);
    let mut v = start;
    for k in 0..n {
        if k > 0 {
            v = v
                .checked_add(step)
                .ok_or_else(|| OpError::input(2, format!("element {k} overflows an int")))?;
        }
        items.push(Value::Int(v));
    }
    Ok(Value::List(items.into()))
}

/// The elements of `a`, then those of `b`.
#[op("list.concat", out = "both", infer = infer_concat)]
pub fn concat(
    #[input("the first list")] a: &[Value],
    #[input("the second list")] b: &[Value],
) -> Result<Vec<Value>, OpError> {
    let n = check_len(1, a.len() as u64 + b.len() as u64)?;
    let mut items = Vec::with_capacity(n);
    items.extend_from_slice(a);
    items.extend_from_slice(b);
    Ok(items)
}

/// Pairs: element `i` is the list `[a[i], b[i]]`; `a` and `b` must have the same length.
#[op("list.zip", out = "the pairs", out_type = list_of(ValueType::List))]
pub fn zip(
    #[input("the first elements")] a: &[Value],
    #[input("the second elements")] b: &[Value],
) -> Result<Value, OpError> {
    if a.len() != b.len() {
        return Err(OpError::input(
            1,
            format!(
                "`a` has {} elements and `b` has {}; zip needs the same length",
                a.len(),
                b.len()
            ),
        ));
    }
    Ok(Value::list(
        a.iter()
            .zip(b)
            .map(|(x, y)| Value::list([x.clone(), y.clone()])),
    ))
}

/// The elements of the lists in `list`, in order (one level; an element that is not a list
/// is kept as it is).
#[op("list.flatten", out = "the elements", infer = infer_flatten)]
pub fn flatten(#[input("a list of lists")] list: &[Value]) -> Result<Vec<Value>, OpError> {
    let total: u64 = list
        .iter()
        .map(|v| v.as_list().map_or(1, |x| x.len() as u64))
        .sum();
    let mut items = Vec::with_capacity(check_len(0, total)?);
    for v in list {
        match v {
            Value::List(x) => items.extend_from_slice(x),
            other => items.push(other.clone()),
        }
    }
    Ok(items)
}

/// Register the ops of this file.
pub(super) fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(MakeOp::new())?;
    reg.register(RangeOp::new())?;
    reg.register(ConcatOp::new())?;
    reg.register(ZipOp::new())?;
    reg.register(FlattenOp::new())
}

#[cfg(test)]
mod tests {
    use super::super::testing::{floats, ints, run};
    use kiln_core::value::Value;

    #[test]
    fn make_passes_the_queued_list() {
        let l = ints(&[3, 1]);
        assert_eq!(
            run("list.make", std::slice::from_ref(&l), &[]).unwrap()[0],
            l
        );
        assert_eq!(run("list.make", &[], &[]).unwrap()[0], ints(&[]));
    }

    #[test]
    fn range_counts_from_start_by_step() {
        let r = |s: i64, n: i64, d: i64| {
            run(
                "list.range",
                &[Value::Int(s), Value::Int(n), Value::Int(d)],
                &[],
            )
        };
        assert_eq!(r(2, 4, 3).unwrap()[0], ints(&[2, 5, 8, 11]));
        assert_eq!(r(0, 3, -1).unwrap()[0], ints(&[0, -1, -2]));
        assert_eq!(r(5, 0, 1).unwrap()[0], ints(&[]));
        let neg = r(0, -1, 1).unwrap_err();
        assert!(neg.message.contains("-1"), "{}", neg.message);
        // A huge count fails before anything is allocated, naming the limit.
        let huge = r(0, 1 << 40, 1).unwrap_err();
        assert!(huge.message.contains("10000000"), "{}", huge.message);
        let over = r(i64::MAX - 1, 3, 1).unwrap_err();
        assert!(over.message.contains("element 2"), "{}", over.message);
    }

    #[test]
    fn concat_zip_flatten() {
        let c = run("list.concat", &[ints(&[1, 2]), floats(&[0.5])], &[]).unwrap();
        assert_eq!(
            c[0],
            Value::list([Value::Int(1), Value::Int(2), Value::Float(0.5)])
        );
        let z = run("list.zip", &[ints(&[1, 2]), floats(&[0.5, 1.5])], &[]).unwrap();
        assert_eq!(
            z[0],
            Value::list([
                Value::list([Value::Int(1), Value::Float(0.5)]),
                Value::list([Value::Int(2), Value::Float(1.5)]),
            ])
        );
        let bad = run("list.zip", &[ints(&[1, 2]), ints(&[1])], &[]).unwrap_err();
        assert!(bad.message.contains("2 elements") && bad.message.contains("has 1"));
        let f = run(
            "list.flatten",
            &[Value::list([
                ints(&[1, 2]),
                Value::Int(3),
                ints(&[]),
                ints(&[4]),
            ])],
            &[],
        )
        .unwrap();
        assert_eq!(f[0], ints(&[1, 2, 3, 4]));
    }
}
