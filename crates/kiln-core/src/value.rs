//! Values that flow along wires.
//!
//! Plain values (numbers, vectors, colours, strings) are stored inline and cloned by copy.
//! Heavy values (images, audio buffers, meshes, or any type registered by name) live behind an
//! [`Arc`]: cloning one is a reference-count increment, and each carries its size in bytes
//! and a content hash computed the first time it is needed.

use crate::key::{Key, KeyHasher};
use std::any::Any;
use std::fmt;
use std::sync::{Arc, OnceLock};

/// The type of a value, or of a port.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ValueType {
    /// 64-bit float.
    Float,
    /// 64-bit signed integer.
    Int,
    /// Boolean.
    Bool,
    /// Two floats.
    Vec2,
    /// Three floats.
    Vec3,
    /// Four floats.
    Vec4,
    /// Linear RGBA colour, four f32.
    Color,
    /// UTF-8 string.
    String,
    /// List of values of any type (element types are checked when the list is used).
    List,
    /// List whose elements are all of one type, `list<T>` (see [`crate::list_type`]: the
    /// element type is interned, so `list<list<float>>` nests).
    ListOf(&'static ValueType),
    /// A record: named fields (see [`crate::record`]).
    Record,
    /// A heavy value of the named registered type (for example `"image"`).
    Heavy(&'static str),
    /// An audio-rate stream of `f64` samples, produced and consumed only by signal ops in the
    /// streaming evaluator (see [`crate::signal`]). A float or int wired into a signal port is a
    /// constant signal. Never a value's type.
    Signal,
    /// Port constraint: any numeric type (float, int, vectors, colour). Never a value's type.
    Number,
    /// Port constraint: any type at all. Never a value's type.
    Any,
}

impl ValueType {
    /// The name used in graph files, diagnostics and docs.
    pub fn name(&self) -> &'static str {
        match self {
            ValueType::Float => "float",
            ValueType::Int => "int",
            ValueType::Bool => "bool",
            ValueType::Vec2 => "vec2",
            ValueType::Vec3 => "vec3",
            ValueType::Vec4 => "vec4",
            ValueType::Color => "color",
            ValueType::String => "string",
            ValueType::List => "list",
            ValueType::ListOf(e) => crate::list_type::list_name(**e),
            ValueType::Record => "record",
            ValueType::Heavy(n) => n,
            ValueType::Signal => "signal",
            ValueType::Number => "number",
            ValueType::Any => "any",
        }
    }

    /// Parse a plain type name (`float`, `int`, `record`, `list<float>`, ...). Heavy names
    /// (and lists of them) are resolved by callers that know the registered heavy types, with
    /// [`crate::list_type::parse_with`].
    pub fn parse_plain(s: &str) -> Option<ValueType> {
        if s.starts_with("list<") {
            return crate::list_type::parse_with(s, ValueType::parse_leaf);
        }
        ValueType::parse_leaf(s)
    }

    /// A plain type name that is not a typed list.
    fn parse_leaf(s: &str) -> Option<ValueType> {
        Some(match s {
            "float" => ValueType::Float,
            "int" => ValueType::Int,
            "bool" => ValueType::Bool,
            "vec2" => ValueType::Vec2,
            "vec3" => ValueType::Vec3,
            "vec4" => ValueType::Vec4,
            "color" => ValueType::Color,
            "string" => ValueType::String,
            "list" => ValueType::List,
            "record" => ValueType::Record,
            "signal" => ValueType::Signal,
            "number" => ValueType::Number,
            "any" => ValueType::Any,
            _ => return None,
        })
    }

    /// True for the numeric types that [`ValueType::Number`] accepts.
    pub fn is_numeric(&self) -> bool {
        matches!(
            self,
            ValueType::Float
                | ValueType::Int
                | ValueType::Vec2
                | ValueType::Vec3
                | ValueType::Vec4
                | ValueType::Color
                | ValueType::Number
        )
    }

    /// Whether a value of type `found` may be wired into a port of type `self`.
    ///
    /// The rules: equal types connect; `any` accepts everything; `number` accepts every numeric
    /// type; the single implicit conversion is **int → float** (an int arriving at a float port
    /// is read as a float), and a float or int wired into a `signal` port is a constant signal. A source whose type is itself a constraint (`any`, `number`) is
    /// accepted where the two overlap; the op then checks the actual value when it runs.
    ///
    /// Lists: `list` and `list<T>` meet either way (the elements are checked when the list is
    /// used), and `list<A>` accepts `list<B>` when `A` accepts `B` — so `list<float>` accepts
    /// `list<int>` but `list<image>` refuses `list<float>`.
    pub fn accepts(&self, found: ValueType) -> bool {
        use ValueType::*;
        let (mut want, mut got) = (*self, found);
        // Peel matching list layers without recursion.
        while let (ListOf(a), ListOf(b)) = (want, got) {
            want = *a;
            got = *b;
        }
        match (want, got) {
            (a, b) if a == b => true,
            (Any, _) | (_, Any) => true,
            (List, ListOf(_)) | (ListOf(_), List) => true,
            (Number, f) => f.is_numeric(),
            (t, Number) => t.is_numeric(),
            (Float, Int) => true,
            (Signal, Float | Int) => true,
            _ => false,
        }
    }

    /// `v` as a port of this type reads it: the one implicit conversion, an int at a float
    /// port, made (see [`ValueType::accepts`]); any other value as it is.
    pub fn conform(&self, v: Value) -> Value {
        match (self, v) {
            (ValueType::Float, Value::Int(i)) => Value::Float(i as f64),
            (_, v) => v,
        }
    }

    /// Whether values of this type are lists (`list` or `list<T>`).
    pub fn is_list(&self) -> bool {
        matches!(self, ValueType::List | ValueType::ListOf(_))
    }

    /// The element type of a typed list (`None` for other types; `Any` for `list`).
    pub fn element(&self) -> Option<ValueType> {
        match self {
            ValueType::ListOf(e) => Some(**e),
            ValueType::List => Some(ValueType::Any),
            _ => None,
        }
    }
}

impl fmt::Display for ValueType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Data of a heavy value. Implement it for a type to carry that type along wires.
pub trait HeavyData: Any + Send + Sync + fmt::Debug {
    /// The registered type name, e.g. `"image"`.
    fn type_name(&self) -> &'static str;
    /// Size of the data in bytes (what a memory budget counts).
    fn byte_size(&self) -> usize;
    /// Feed the full content into `h`. Called at most once per value, when its content hash
    /// is first needed.
    fn hash_content(&self, h: &mut KeyHasher);
    /// Upcast for downcasting by [`Heavy::downcast`].
    fn as_any(&self) -> &dyn Any;
}

struct HeavyInner {
    /// The content hash, computed the first time something asks for it.
    hash: OnceLock<Key>,
    bytes: usize,
    data: Box<dyn HeavyData>,
}

/// A shared heavy value: cheap to clone, hashed at most once.
///
/// The content hash is computed lazily, the first time a key, a comparison or a cache asks
/// for it ([`Heavy::content_hash`]), and then kept: a value nobody keys (a simulation's
/// scratch state, an intermediate that no memo compares) is never hashed. The hash depends
/// only on the content, so when it is computed changes no key.
#[derive(Clone)]
pub struct Heavy(Arc<HeavyInner>);

impl Heavy {
    /// Wrap data, taking its size now; its content hash is computed when first asked for.
    pub fn new<T: HeavyData>(data: T) -> Heavy {
        Heavy(Arc::new(HeavyInner {
            hash: OnceLock::new(),
            bytes: data.byte_size(),
            data: Box::new(data),
        }))
    }
    /// The registered type name.
    pub fn type_name(&self) -> &'static str {
        self.0.data.type_name()
    }
    /// The content hash (the type name, then the data's [`HeavyData::hash_content`]),
    /// computed on the first call and kept.
    pub fn content_hash(&self) -> Key {
        *self.0.hash.get_or_init(|| {
            let mut h = KeyHasher::new();
            h.str(self.0.data.type_name());
            self.0.data.hash_content(&mut h);
            h.finish_key()
        })
    }
    /// Whether the content hash has been computed (by [`Heavy::content_hash`]).
    pub fn is_hashed(&self) -> bool {
        self.0.hash.get().is_some()
    }
    /// Size in bytes.
    pub fn byte_size(&self) -> usize {
        self.0.bytes
    }
    /// Borrow as the concrete type, if it is one.
    pub fn downcast<T: HeavyData>(&self) -> Option<&T> {
        self.0.data.as_any().downcast_ref::<T>()
    }
    /// Borrow the data as a trait object.
    pub fn data(&self) -> &dyn HeavyData {
        &*self.0.data
    }
}

impl fmt::Debug for Heavy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Heavy<{}>({} bytes, {})",
            self.type_name(),
            self.byte_size(),
            self.content_hash()
        )
    }
}

impl PartialEq for Heavy {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.content_hash() == other.content_hash()
    }
}

/// A value carried by a wire.
#[derive(Clone, Debug, PartialEq, Default)]
pub enum Value {
    /// No value: what an op sees at a lazy input it did not pull, or an optional input that
    /// has neither wire nor default.
    #[default]
    Empty,
    /// 64-bit float.
    Float(f64),
    /// 64-bit signed integer.
    Int(i64),
    /// Boolean.
    Bool(bool),
    /// Two floats.
    Vec2([f64; 2]),
    /// Three floats.
    Vec3([f64; 3]),
    /// Four floats.
    Vec4([f64; 4]),
    /// Linear RGBA colour.
    Color([f32; 4]),
    /// Shared string.
    Str(Arc<str>),
    /// Shared list.
    List(Arc<[Value]>),
    /// Shared record (named fields).
    Record(Arc<crate::record::Record>),
    /// Heavy shared value.
    Heavy(Heavy),
    /// The failure of an upstream node, flowing to its dependents under
    /// [`ErrorPolicy::Propagate`](crate::eval::ErrorPolicy::Propagate). An op never sees one
    /// unless its input is declared with [`InputSpec::catches_errors`](crate::op::InputSpec::catches_errors);
    /// otherwise the node passes the error on without executing.
    Error(Arc<crate::error::EvalError>),
}

impl Value {
    /// The value's type (`None` for [`Value::Empty`]).
    pub fn value_type(&self) -> Option<ValueType> {
        Some(match self {
            Value::Empty => return None,
            Value::Float(_) => ValueType::Float,
            Value::Int(_) => ValueType::Int,
            Value::Bool(_) => ValueType::Bool,
            Value::Vec2(_) => ValueType::Vec2,
            Value::Vec3(_) => ValueType::Vec3,
            Value::Vec4(_) => ValueType::Vec4,
            Value::Color(_) => ValueType::Color,
            Value::Str(_) => ValueType::String,
            Value::List(_) => ValueType::List,
            Value::Record(_) => ValueType::Record,
            Value::Heavy(h) => ValueType::Heavy(h.type_name()),
            Value::Error(_) => return None,
        })
    }

    /// Type name for messages (`"empty"` for [`Value::Empty`]).
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Error(_) => "error",
            _ => self.value_type().map(|t| t.name()).unwrap_or("empty"),
        }
    }

    /// The error this value carries, if it is [`Value::Error`].
    pub fn as_error(&self) -> Option<&crate::error::EvalError> {
        match self {
            Value::Error(e) => Some(e),
            _ => None,
        }
    }

    /// Bit-for-bit equality: floats compare by their bits (so `-0.0` differs from `0.0` and a
    /// NaN equals only the same NaN), heavy values by content hash. Early cutoff uses this,
    /// so a result counts as unchanged only when recomputing downstream would give the same
    /// bits.
    pub fn same_bits(&self, other: &Value) -> bool {
        fn f(a: &[f64], b: &[f64]) -> bool {
            a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
        }
        match (self, other) {
            (Value::Empty, Value::Empty) => true,
            (Value::Float(a), Value::Float(b)) => a.to_bits() == b.to_bits(),
            (Value::Int(a), Value::Int(b)) => a == b,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Vec2(a), Value::Vec2(b)) => f(a, b),
            (Value::Vec3(a), Value::Vec3(b)) => f(a, b),
            (Value::Vec4(a), Value::Vec4(b)) => f(a, b),
            (Value::Color(a), Value::Color(b)) => {
                a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
            }
            (Value::Str(a), Value::Str(b)) => a == b,
            (Value::List(a), Value::List(b)) => {
                // Numbers, the common items, are compared here without a call each.
                let item = |x: &Value, y: &Value| match (x, y) {
                    (Value::Float(p), Value::Float(q)) => p.to_bits() == q.to_bits(),
                    (Value::Int(p), Value::Int(q)) => p == q,
                    _ => x.same_bits(y),
                };
                Arc::ptr_eq(a, b)
                    || (a.len() == b.len() && a.iter().zip(b.iter()).all(|(x, y)| item(x, y)))
            }
            (Value::Record(a), Value::Record(b)) => {
                Arc::ptr_eq(a, b)
                    || (a.len() == b.len()
                        && a.fields()
                            .iter()
                            .zip(b.fields())
                            .all(|((k, x), (l, y))| k == l && x.same_bits(y)))
            }
            (Value::Heavy(a), Value::Heavy(b)) => a == b,
            (Value::Error(a), Value::Error(b)) => a == b,
            _ => false,
        }
    }

    /// Feed the value's canonical encoding into a key hasher. Heavy values feed their stored
    /// content hash, so hashing them costs the same as hashing an int.
    pub fn hash_into(&self, h: &mut KeyHasher) {
        match self {
            Value::Empty => h.u8(0),
            Value::Float(v) => {
                h.u8(1);
                h.f64(*v)
            }
            Value::Int(v) => {
                h.u8(2);
                h.i64(*v)
            }
            Value::Bool(v) => {
                h.u8(3);
                h.u8(*v as u8)
            }
            Value::Vec2(v) => {
                h.u8(4);
                v.iter().for_each(|x| h.f64(*x))
            }
            Value::Vec3(v) => {
                h.u8(5);
                v.iter().for_each(|x| h.f64(*x))
            }
            Value::Vec4(v) => {
                h.u8(6);
                v.iter().for_each(|x| h.f64(*x))
            }
            Value::Color(v) => {
                h.u8(7);
                v.iter().for_each(|x| h.f32(*x))
            }
            Value::Str(s) => {
                h.u8(8);
                h.str(s)
            }
            Value::List(l) => {
                h.u8(9);
                h.u64(l.len() as u64);
                l.iter().for_each(|v| v.hash_into(h))
            }
            Value::Heavy(v) => {
                h.u8(10);
                h.u128(v.content_hash().0)
            }
            Value::Error(e) => {
                h.u8(11);
                h.str(&e.to_string())
            }
            Value::Record(r) => {
                h.u8(12);
                h.u64(r.len() as u64);
                for (k, v) in r.fields() {
                    h.str(k);
                    v.hash_into(h);
                }
            }
        }
    }

    /// The content hash of this value alone.
    pub fn content_hash(&self) -> Key {
        if let Value::Heavy(h) = self {
            return h.content_hash();
        }
        let mut h = KeyHasher::new();
        self.hash_into(&mut h);
        h.finish_key()
    }

    /// Approximate bytes held by the value (inline size plus shared payloads).
    pub fn byte_size(&self) -> usize {
        std::mem::size_of::<Value>()
            + match self {
                Value::Str(s) => s.len(),
                Value::List(l) => l.iter().map(Value::byte_size).sum(),
                Value::Record(r) => r
                    .fields()
                    .iter()
                    .map(|(k, v)| k.len() + v.byte_size())
                    .sum(),
                Value::Heavy(h) => h.byte_size(),
                _ => 0,
            }
    }

    /// Read as a float; an int converts (the one implicit conversion).
    #[inline]
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Float(v) => Some(*v),
            Value::Int(v) => Some(*v as f64),
            _ => None,
        }
    }
    /// Read as an int.
    #[inline]
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Value::Int(v) => Some(*v),
            _ => None,
        }
    }
    /// Read as a bool.
    #[inline]
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(v) => Some(*v),
            _ => None,
        }
    }
    /// Read as a string.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }
    /// Read as a list.
    pub fn as_list(&self) -> Option<&[Value]> {
        match self {
            Value::List(l) => Some(l),
            _ => None,
        }
    }
    /// Read as a record.
    pub fn as_record(&self) -> Option<&crate::record::Record> {
        match self {
            Value::Record(r) => Some(r),
            _ => None,
        }
    }
    /// Build a record value from its fields (see [`crate::record::Record::new`]).
    pub fn record<'a>(fields: impl IntoIterator<Item = (&'a str, Value)>) -> Value {
        Value::Record(Arc::new(crate::record::Record::new(
            fields.into_iter().map(|(k, v)| (Arc::from(k), v)),
        )))
    }
    /// Build a list value.
    pub fn list(items: impl IntoIterator<Item = Value>) -> Value {
        Value::List(items.into_iter().collect())
    }
    /// Read as a colour: a colour, a vec3 (alpha 1) or vec4, or a `#rrggbb` / `#rrggbbaa`
    /// hex string (sRGB-encoded digits are taken as linear values / 255).
    pub fn as_color(&self) -> Option<[f32; 4]> {
        match self {
            Value::Color(c) => Some(*c),
            Value::Vec3(v) => Some([v[0] as f32, v[1] as f32, v[2] as f32, 1.0]),
            Value::Vec4(v) => Some([v[0] as f32, v[1] as f32, v[2] as f32, v[3] as f32]),
            Value::Str(s) => parse_hex_color(s),
            _ => None,
        }
    }
    /// Borrow a heavy value as a concrete type.
    pub fn as_heavy<T: HeavyData>(&self) -> Option<&T> {
        match self {
            Value::Heavy(h) => h.downcast::<T>(),
            _ => None,
        }
    }
    /// Build a string value.
    pub fn str(s: &str) -> Value {
        Value::Str(Arc::from(s))
    }
}

/// Parse `#rgb`, `#rrggbb` or `#rrggbbaa` into a colour with channels in 0..=1.
pub fn parse_hex_color(s: &str) -> Option<[f32; 4]> {
    let hex = s.strip_prefix('#')?;
    if !hex.is_ascii() {
        return None;
    }
    let byte = |i: usize| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok();
    let nib = |i: usize| {
        u8::from_str_radix(hex.get(i..i + 1)?, 16)
            .ok()
            .map(|v| v * 17)
    };
    let (r, g, b, a) = match hex.len() {
        3 => (nib(0)?, nib(1)?, nib(2)?, 255),
        6 => (byte(0)?, byte(2)?, byte(4)?, 255),
        8 => (byte(0)?, byte(2)?, byte(4)?, byte(6)?),
        _ => return None,
    };
    Some([r, g, b, a].map(|c| c as f32 / 255.0))
}

impl From<f64> for Value {
    fn from(v: f64) -> Self {
        Value::Float(v)
    }
}
impl From<i64> for Value {
    fn from(v: i64) -> Self {
        Value::Int(v)
    }
}
impl From<bool> for Value {
    fn from(v: bool) -> Self {
        Value::Bool(v)
    }
}
impl From<&str> for Value {
    fn from(v: &str) -> Self {
        Value::str(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct Blob(Vec<u8>);
    impl HeavyData for Blob {
        fn type_name(&self) -> &'static str {
            "blob"
        }
        fn byte_size(&self) -> usize {
            self.0.len()
        }
        fn hash_content(&self, h: &mut KeyHasher) {
            h.bytes(&self.0)
        }
        fn as_any(&self) -> &dyn Any {
            self
        }
    }

    #[test]
    fn heavy_is_shared_and_hashed_once() {
        let a = Heavy::new(Blob(vec![1, 2, 3]));
        let b = a.clone();
        assert_eq!(a.content_hash(), b.content_hash());
        assert_eq!(a.byte_size(), 3);
        assert_eq!(
            Value::Heavy(a.clone()).value_type(),
            Some(ValueType::Heavy("blob"))
        );
        let c = Heavy::new(Blob(vec![1, 2, 4]));
        assert_ne!(a.content_hash(), c.content_hash());
        assert_eq!(a.downcast::<Blob>().map(|b| b.0.len()), Some(3));
    }

    /// Counts how often its content is hashed.
    #[derive(Debug)]
    struct Counted(Vec<u8>, std::sync::Arc<std::sync::atomic::AtomicUsize>);
    impl HeavyData for Counted {
        fn type_name(&self) -> &'static str {
            "blob"
        }
        fn byte_size(&self) -> usize {
            self.0.len()
        }
        fn hash_content(&self, h: &mut KeyHasher) {
            self.1.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            h.bytes(&self.0)
        }
        fn as_any(&self) -> &dyn Any {
            self
        }
    }

    #[test]
    fn heavy_content_is_hashed_lazily_once_and_to_the_same_key() {
        use std::sync::atomic::Ordering;
        let n = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let a = Heavy::new(Counted(vec![1, 2, 3], n.clone()));
        let b = a.clone();
        // Built, cloned and sized: not hashed.
        assert_eq!((a.byte_size(), n.load(Ordering::SeqCst)), (3, 0));
        assert!(!a.is_hashed());
        // The key is the one an eager hash of the same content gives (a `Blob` of the same
        // type name and bytes), computed once for every holder.
        let want = Heavy::new(Blob(vec![1, 2, 3])).content_hash();
        assert_eq!(a.content_hash(), want);
        assert_eq!(b.content_hash(), want);
        assert!(b.is_hashed());
        assert_eq!(n.load(Ordering::SeqCst), 1);
        // Values compare by pointer first: comparing a value with its clone hashes nothing.
        let c = Heavy::new(Counted(vec![9], n.clone()));
        assert!(c == c.clone());
        assert_eq!(n.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn value_hash_distinguishes_types_and_canonicalises_nan() {
        assert_ne!(
            Value::Int(1).content_hash(),
            Value::Float(1.0).content_hash()
        );
        assert_eq!(
            Value::Float(f64::NAN).content_hash(),
            Value::Float(f64::from_bits(0x7ff8_0000_0000_1234)).content_hash()
        );
    }

    #[test]
    fn conversions() {
        assert!(ValueType::Float.accepts(ValueType::Int));
        assert!(!ValueType::Int.accepts(ValueType::Float));
        assert!(ValueType::Number.accepts(ValueType::Vec3));
        assert!(!ValueType::Number.accepts(ValueType::String));
        assert_eq!(Value::Int(3).as_f64(), Some(3.0));
        assert_eq!(parse_hex_color("#ff0000"), Some([1.0, 0.0, 0.0, 1.0]));
        assert_eq!(parse_hex_color("#zz0000"), None);
        assert_eq!(parse_hex_color("#ÿÿ"), None);
    }

    #[test]
    fn typed_lists_meet_untyped_and_check_elements() {
        use crate::list_type::list_of;
        let floats = list_of(ValueType::Float);
        let images = list_of(ValueType::Heavy("image"));
        assert!(floats.accepts(ValueType::List));
        assert!(ValueType::List.accepts(images));
        assert!(floats.accepts(list_of(ValueType::Int)));
        assert!(!images.accepts(floats));
        assert!(!list_of(floats).accepts(floats));
        assert!(list_of(floats).accepts(list_of(ValueType::List)));
        assert!(!ValueType::Float.accepts(floats));
        assert!(!floats.accepts(ValueType::Float));
        assert_eq!(
            ValueType::parse_plain("list<record>"),
            Some(list_of(ValueType::Record))
        );
        assert_eq!(ValueType::parse_plain("record"), Some(ValueType::Record));
    }

    #[test]
    fn records_hash_by_content_not_build_order() {
        let a = Value::record([("x", Value::Int(1)), ("name", Value::str("a"))]);
        let b = Value::record([("name", Value::str("a")), ("x", Value::Int(1))]);
        let c = Value::record([("name", Value::str("a")), ("x", Value::Int(2))]);
        assert!(a.same_bits(&b));
        assert_eq!(a.content_hash(), b.content_hash());
        assert_ne!(a.content_hash(), c.content_hash());
        // A record differs from a list of the same values.
        let l = Value::list([Value::str("a"), Value::Int(1)]);
        assert_ne!(a.content_hash(), l.content_hash());
        // Inline size plus both names plus each field's own size.
        let field = std::mem::size_of::<Value>();
        assert_eq!(
            a.byte_size(),
            field + ("name".len() + field + 1) + ("x".len() + field)
        );
        assert_eq!(a.value_type(), Some(ValueType::Record));
    }
}
