//! Reading lists: `list.length`, `list.get`, `list.slice`.

use super::same_list;
use kiln_core::op;
use kiln_core::op::OpError;
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::value::{Value, ValueType};

/// The output type of `list.get`: the list's element type.
fn infer_element(i: &[Option<ValueType>], _: &[Value]) -> Result<Vec<ValueType>, String> {
    Ok(vec![
        i.first()
            .copied()
            .flatten()
            .and_then(|t| t.element())
            .unwrap_or(ValueType::Any),
    ])
}

/// The number of elements of `list`.
#[op("list.length", out = "its length")]
pub fn length(#[input("the list")] list: &[Value]) -> i64 {
    list.len() as i64
}

/// Element `index` of `list` (from 0); an index outside the list is an error.
#[op("list.get", out = "the element", infer = infer_element)]
pub fn get(
    #[input("the list")] list: &[Value],
    #[input("from 0")] index: i64,
) -> Result<Value, OpError> {
    let Some(v) = usize::try_from(index).ok().and_then(|i| list.get(i)) else {
        return Err(OpError::input(
            1,
            format!(
                "index {index} is outside the list of {} elements (0 to {})",
                list.len(),
                list.len() as i64 - 1
            ),
        ));
    };
    Ok(v.clone())
}

/// Elements `start` up to (not including) `end`; `end` -1 means the list's length. Bounds
/// outside the list, or `start` after `end`, are errors.
#[op(
    "list.slice",
    out = "the slice",
    out_type = ValueType::List,
    infer = same_list
)]
pub fn slice(
    #[input("the list")] list: &[Value],
    #[input("the first element taken", default = 0)] start: i64,
    #[input("the first element not taken (-1: the length)", default = -1)] end: i64,
) -> Result<Value, OpError> {
    let len = list.len() as i64;
    let end = if end == -1 { len } else { end };
    if !(0..=len).contains(&start) {
        return Err(OpError::input(
            1,
            format!("start {start} is outside the list of {len} elements (0 to {len})"),
        ));
    }
    if !(start..=len).contains(&end) {
        return Err(OpError::input(
            2,
            format!(
                "end {end} is outside {start} to {len} (the start to the length of the list of {len} elements)"
            ),
        ));
    }
    Ok(Value::List(list[start as usize..end as usize].into()))
}

/// Register the ops of this file.
pub(super) fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(LengthOp::new())?;
    reg.register(GetOp::new())?;
    reg.register(SliceOp::new())
}

#[cfg(test)]
mod tests {
    use super::super::testing::{ints, run};
    use kiln_core::value::Value;

    #[test]
    fn length_and_get() {
        let l = ints(&[7, 8, 9]);
        assert_eq!(
            run("list.length", std::slice::from_ref(&l), &[]).unwrap()[0],
            Value::Int(3)
        );
        assert_eq!(
            run("list.length", &[ints(&[])], &[]).unwrap()[0],
            Value::Int(0)
        );
        assert_eq!(
            run("list.get", &[l.clone(), Value::Int(2)], &[]).unwrap()[0],
            Value::Int(9)
        );
        for bad in [3, -1] {
            let e = run("list.get", &[l.clone(), Value::Int(bad)], &[]).unwrap_err();
            assert!(
                e.message.contains(&format!("index {bad}")) && e.message.contains("3 elements"),
                "{}",
                e.message
            );
        }
        assert!(run("list.get", &[Value::Int(1), Value::Int(0)], &[]).is_err());
    }

    #[test]
    fn slice_bounds() {
        let l = ints(&[0, 1, 2, 3, 4]);
        let s = |a: i64, b: i64| {
            run(
                "list.slice",
                &[l.clone(), Value::Int(a), Value::Int(b)],
                &[],
            )
        };
        assert_eq!(s(1, 3).unwrap()[0], ints(&[1, 2]));
        assert_eq!(s(2, -1).unwrap()[0], ints(&[2, 3, 4]));
        assert_eq!(s(5, 5).unwrap()[0], ints(&[]));
        assert!(s(6, -1).unwrap_err().message.contains("start 6"));
        assert!(s(3, 2).unwrap_err().message.contains("end 2"));
        assert!(s(0, 6).unwrap_err().message.contains("end 6"));
    }
}
