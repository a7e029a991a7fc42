//! Records: `record.make`, `record.get`, `record.set`.

use kiln_core::list_type::list_of;
use kiln_core::op;
use kiln_core::op::OpError;
use kiln_core::record::Record;
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::value::{Value, ValueType};
use std::sync::Arc;

/// The value `v` at input `i` as a record, or an error naming the port.
fn record_at(v: &Value, i: usize) -> Result<&Record, OpError> {
    match v {
        Value::Record(r) => Ok(r),
        other => Err(OpError::input(
            i,
            format!("expected a record, found {}", other.type_name()),
        )),
    }
}

/// A record whose field `names[i]` is `values[i]` (a name given twice keeps its last value).
#[op("record.make", out = "the record", out_type = ValueType::Record)]
pub fn make(
    #[input("the field names", ty = list_of(ValueType::String))] names: &[Value],
    #[input("a value per name")] values: &[Value],
) -> Result<Value, OpError> {
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
    Ok(Value::Record(Arc::new(Record::new(fields))))
}

/// Field `field` of `record`; a missing field is an error.
#[op("record.get", out = "the field's value")]
pub fn get(
    #[input("the record", ty = ValueType::Record)] record: &Value,
    #[param("the field's name")] field: &str,
) -> Result<Value, OpError> {
    let r = record_at(record, 0)?;
    r.get(field).cloned().ok_or_else(|| {
        let names: Vec<&str> = r.names().collect();
        OpError::param(
            0,
            format!(
                "the record has no field `{field}` (it has: {})",
                names.join(", ")
            ),
        )
    })
}

/// `record` with field `field` set to `value` (added when absent); the input record is
/// unchanged.
#[op("record.set", out = "the new record", out_type = ValueType::Record)]
pub fn set(
    #[input("the record", ty = ValueType::Record)] record: &Value,
    #[input("the new value")] value: &Value,
    #[param("the field's name")] field: &str,
) -> Result<Value, OpError> {
    let r = record_at(record, 0)?;
    Ok(Value::Record(Arc::new(r.with(field, value.clone()))))
}

/// Register the ops of this file.
pub(super) fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(MakeOp::new())?;
    reg.register(GetOp::new())?;
    reg.register(SetOp::new())
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
