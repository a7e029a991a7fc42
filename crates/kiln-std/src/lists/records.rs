//! Records: `record.make`, `record.get`, `record.set`.

use super::list_at;
use crate::util::FnOp;
use kiln_core::op::{InputSpec, OpError, OpSpec, OutputSpec, ParamSpec};
use kiln_core::record::Record;
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::value::{Value, ValueType};
use std::sync::Arc;

fn record_at(inputs: &[Value], i: usize) -> Result<&Record, OpError> {
    match inputs.get(i) {
        Some(Value::Record(r)) => Ok(r),
        other => Err(OpError::input(
            i,
            format!(
                "expected a record, found {}",
                other.map(Value::type_name).unwrap_or("nothing")
            ),
        )),
    }
}

pub(super) fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(FnOp::new(
        OpSpec::new(
            "record.make",
            "A record whose field `names[i]` is `values[i]` (a name given twice keeps its last value).",
        )
        .input(InputSpec::required(
            "names",
            kiln_core::list_type::list_of(ValueType::String),
            "the field names",
        ))
        .input(InputSpec::required("values", ValueType::List, "a value per name"))
        .output(OutputSpec::new("out", ValueType::Record, "the record")),
        |c, out| {
            let (names, values) = (list_at(c.inputs, 0)?, list_at(c.inputs, 1)?);
            if names.len() != values.len() {
                return Err(OpError::input(
                    1,
                    format!("{} values for {} names", values.len(), names.len()),
                ));
            }
            let mut fields = Vec::with_capacity(names.len());
            for (i, (n, v)) in names.iter().zip(values.iter()).enumerate() {
                let Some(n) = n.as_str() else {
                    return Err(OpError::input(
                        0,
                        format!("name {i} is {}, not a string", n.type_name()),
                    ));
                };
                fields.push((Arc::from(n), v.clone()));
            }
            out[0] = Value::Record(Arc::new(Record::new(fields)));
            Ok(())
        },
    ))?;
    reg.register(FnOp::new(
        OpSpec::new(
            "record.get",
            "Field `field` of `record`; a missing field is an error.",
        )
        .input(InputSpec::required(
            "record",
            ValueType::Record,
            "the record",
        ))
        .param(ParamSpec::required(
            "field",
            ValueType::String,
            "the field's name",
        ))
        .output(OutputSpec::new("out", ValueType::Any, "the field's value")),
        |c, out| {
            let r = record_at(c.inputs, 0)?;
            let name = c.param_str(0)?;
            out[0] = r.get(name).cloned().ok_or_else(|| {
                let names: Vec<&str> = r.names().collect();
                OpError::param(
                    0,
                    format!(
                        "the record has no field `{name}` (it has: {})",
                        names.join(", ")
                    ),
                )
            })?;
            Ok(())
        },
    ))?;
    reg.register(
        FnOp::new(
            OpSpec::new(
                "record.set",
                "`record` with field `field` set to `value` (added when absent); the input record is unchanged.",
            )
            .input(InputSpec::required("record", ValueType::Record, "the record"))
            .input(InputSpec::required("value", ValueType::Any, "the new value"))
            .param(ParamSpec::required("field", ValueType::String, "the field's name"))
            .output(OutputSpec::new("out", ValueType::Record, "the new record")),
            |c, out| {
                let r = record_at(c.inputs, 0)?;
                out[0] = Value::Record(Arc::new(r.with(c.param_str(0)?, c.inputs[1].clone())));
                Ok(())
            },
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::super::testing::run;
    use kiln_core::value::Value;

    #[test]
    fn make_get_set() {
        let names = Value::list(["size", "name"].map(Value::str));
        let values = Value::list([Value::Float(2.0), Value::str("a")]);
        let r = run("record.make", &[names, values], &[]).unwrap().remove(0);
        assert_eq!(
            r,
            Value::record([("name", Value::str("a")), ("size", Value::Float(2.0))])
        );
        let size = run(
            "record.get",
            std::slice::from_ref(&r),
            &[Value::str("size")],
        )
        .unwrap();
        assert_eq!(size[0], Value::Float(2.0));
        let e = run(
            "record.get",
            std::slice::from_ref(&r),
            &[Value::str("colour")],
        )
        .unwrap_err();
        assert!(e.message.contains("`colour`") && e.message.contains("name, size"));
        let s = run(
            "record.set",
            &[r.clone(), Value::Int(4)],
            &[Value::str("size")],
        )
        .unwrap();
        assert_eq!(
            s[0],
            Value::record([("name", Value::str("a")), ("size", Value::Int(4))])
        );
        let added = run("record.set", &[r, Value::Bool(true)], &[Value::str("big")]).unwrap();
        assert_eq!(added[0].as_record().map(|r| r.len()), Some(3));
        let mismatch = run(
            "record.make",
            &[Value::list([Value::str("a")]), Value::list([])],
            &[],
        );
        assert!(
            mismatch
                .unwrap_err()
                .message
                .contains("0 values for 1 names")
        );
    }
}
