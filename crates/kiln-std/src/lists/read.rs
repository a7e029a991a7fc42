//! Reading lists: `list.length`, `list.get`, `list.slice`.

use super::{int_at, list_at};
use crate::util::FnOp;
use kiln_core::op::{InputSpec, OpError, OpSpec, OutputSpec};
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::value::{Value, ValueType};

pub(super) fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(FnOp::new(
        OpSpec::new("list.length", "The number of elements of `list`.")
            .input(InputSpec::required("list", ValueType::List, "the list"))
            .output(OutputSpec::new("out", ValueType::Int, "its length")),
        |c, out| {
            out[0] = Value::Int(list_at(c.inputs, 0)?.len() as i64);
            Ok(())
        },
    ))?;
    reg.register(
        FnOp::new(
            OpSpec::new(
                "list.get",
                "Element `index` of `list` (from 0); an index outside the list is an error.",
            )
            .input(InputSpec::required("list", ValueType::List, "the list"))
            .input(InputSpec::required("index", ValueType::Int, "from 0"))
            .output(OutputSpec::new("out", ValueType::Any, "the element")),
            |c, out| {
                let l = list_at(c.inputs, 0)?;
                let i = int_at(c.inputs, 1)?;
                let Some(v) = usize::try_from(i).ok().and_then(|i| l.get(i)) else {
                    return Err(OpError::input(
                        1,
                        format!(
                            "index {i} is outside the list of {} elements (0 to {})",
                            l.len(),
                            l.len() as i64 - 1
                        ),
                    ));
                };
                out[0] = v.clone();
                Ok(())
            },
        )
        .infer(|i, _| {
            Ok(vec![
                i.first()
                    .copied()
                    .flatten()
                    .and_then(|t| t.element())
                    .unwrap_or(ValueType::Any),
            ])
        }),
    )?;
    reg.register(
        FnOp::new(
            OpSpec::new(
                "list.slice",
                "Elements `start` up to (not including) `end`; `end` -1 means the list's length. \
                 Bounds outside the list, or `start` after `end`, are errors.",
            )
            .input(InputSpec::required("list", ValueType::List, "the list"))
            .input(InputSpec::optional(
                "start",
                ValueType::Int,
                Value::Int(0),
                "the first element taken",
            ))
            .input(InputSpec::optional(
                "end",
                ValueType::Int,
                Value::Int(-1),
                "the first element not taken (-1: the length)",
            ))
            .output(OutputSpec::new("out", ValueType::List, "the slice")),
            |c, out| {
                let l = list_at(c.inputs, 0)?;
                let (start, end) = (int_at(c.inputs, 1)?, int_at(c.inputs, 2)?);
                let len = l.len() as i64;
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
                out[0] = Value::List(l[start as usize..end as usize].into());
                Ok(())
            },
        )
        .infer(super::same_list),
    )
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
