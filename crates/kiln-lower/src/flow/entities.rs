//! [`Entities`]: a run of entities as a flow body holds them: values, or plain floats kept
//! unboxed (a float kernel's results, a caller's column of numbers). Both forms stand for
//! the same entities: `Floats(xs)` is `Values` of `Value::Float(x)` for each `x`.

use kiln_core::value::Value;

/// Entities in order: what reached a body output ([`FlowRun`](super::FlowRun)), what a
/// caller gives a body input ([`FlowBody::run_entities`](super::FlowBody::run_entities)), and
/// what a step takes from a queue.
#[derive(Debug, Clone)]
pub enum Entities {
    /// Any values.
    Values(Vec<Value>),
    /// Float entities, unboxed.
    Floats(Vec<f64>),
}

impl Default for Entities {
    fn default() -> Self {
        Entities::Values(Vec::new())
    }
}

impl Entities {
    /// How many.
    pub fn len(&self) -> usize {
        match self {
            Entities::Values(v) => v.len(),
            Entities::Floats(f) => f.len(),
        }
    }
    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Entity `i` as a value.
    pub fn get(&self, i: usize) -> Option<Value> {
        match self {
            Entities::Values(v) => v.get(i).cloned(),
            Entities::Floats(f) => f.get(i).map(|&x| Value::Float(x)),
        }
    }
    /// The floats, when they are held unboxed.
    pub fn as_floats(&self) -> Option<&[f64]> {
        match self {
            Entities::Floats(f) => Some(f),
            Entities::Values(_) => None,
        }
    }
    /// The entities as values (floats boxed one by one).
    pub fn into_values(self) -> Vec<Value> {
        match self {
            Entities::Values(v) => v,
            Entities::Floats(f) => boxed(&f),
        }
    }
    /// The entities as one list value.
    pub fn into_list(self) -> Value {
        Value::List(self.into_values().into())
    }
    /// `more` after these, unboxed when both are floats.
    pub(super) fn append(&mut self, more: Entities) {
        if self.is_empty() {
            *self = more;
            return;
        }
        match (&mut *self, more) {
            (Entities::Floats(a), Entities::Floats(b)) => a.extend(b),
            (Entities::Values(a), b) => a.extend(b.into_values()),
            (Entities::Floats(a), Entities::Values(b)) => {
                let mut all = boxed(a);
                all.extend(b);
                *self = Entities::Values(all);
            }
        }
    }
}

/// Equal when they stand for the same values, whichever form each is in.
impl PartialEq for Entities {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Entities::Values(a), Entities::Values(b)) => a == b,
            (Entities::Floats(a), Entities::Floats(b)) => {
                a.len() == b.len()
                    && a.iter()
                        .zip(b)
                        .all(|(x, y)| Value::Float(*x) == Value::Float(*y))
            }
            (a, b) => a.len() == b.len() && (0..a.len()).all(|i| a.get(i) == b.get(i)),
        }
    }
}

/// `xs` as float values, in order.
fn boxed(xs: &[f64]) -> Vec<Value> {
    let mut out = Vec::with_capacity(xs.len());
    out.extend(xs.iter().map(|&x| Value::Float(x)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_forms_stand_for_the_same_values() {
        let f = Entities::Floats(vec![1.0, 2.5]);
        let v = Entities::Values(vec![Value::Float(1.0), Value::Float(2.5)]);
        assert_eq!(f, v);
        assert_eq!(f.get(1), Some(Value::Float(2.5)));
        assert_eq!(f.clone().into_values(), v.clone().into_values());
        assert_ne!(f, Entities::Floats(vec![1.0]));
    }

    #[test]
    fn appending_keeps_order_and_stays_unboxed_when_it_can() {
        let mut a = Entities::Floats(vec![1.0]);
        a.append(Entities::Floats(vec![2.0]));
        assert_eq!(a.as_floats(), Some(&[1.0, 2.0][..]));
        a.append(Entities::Values(vec![Value::Int(3)]));
        assert_eq!(
            a.into_values(),
            vec![Value::Float(1.0), Value::Float(2.0), Value::Int(3)]
        );
        let mut e = Entities::default();
        e.append(Entities::Floats(vec![4.0]));
        assert_eq!(e.as_floats(), Some(&[4.0][..]));
    }
}
