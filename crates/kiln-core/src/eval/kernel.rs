//! Scalar kernels: nodes whose op offers a float form ([`Op::kernel`](crate::op::Op::kernel))
//! and whose inputs are all statically floats are lowered to a small instruction that reads
//! its operands straight from value slots (or holds a constant) and calls a plain function,
//! so the compiled, eager and incremental evaluators run them without building an `OpCall`.

use crate::op::Kernel;
use crate::plan::{Plan, Source};
use crate::value::{Value, ValueType};

type Un = fn(f64) -> f64;
type Bin = fn(f64, f64) -> f64;
type Ter = fn(f64, f64, f64) -> f64;

/// The operation and its operand slots. Constant operands live in slots of their own after
/// the plan's output slots, so an instruction reads every operand the same way (no branch
/// on where an operand comes from).
#[derive(Clone, Copy)]
enum Code {
    Const(f64),
    Unary(Un, u32),
    Binary(Bin, u32, u32),
    Ternary(Ter, u32, u32, u32),
}

/// A node lowered to a scalar kernel.
#[derive(Clone, Copy)]
pub(crate) struct KInstr {
    /// The node's output slot.
    pub(crate) out: u32,
    code: Code,
}

#[inline(always)]
fn float(vals: &[Value], s: u32) -> Option<f64> {
    match vals[s as usize] {
        Value::Float(x) => Some(x),
        _ => None,
    }
}

impl KInstr {
    /// The kernel's result, or `None` when an operand slot does not hold a float (an error
    /// value, say): then the node must take the general path.
    #[inline(always)]
    pub(crate) fn eval(&self, vals: &[Value]) -> Option<f64> {
        Some(match self.code {
            Code::Const(x) => x,
            Code::Unary(f, a) => f(float(vals, a)?),
            Code::Binary(f, a, b) => f(float(vals, a)?, float(vals, b)?),
            Code::Ternary(f, a, b, c) => f(float(vals, a)?, float(vals, b)?, float(vals, c)?),
        })
    }
}

impl KInstr {
    /// [`KInstr::eval`] with the previous kernel's result at hand: an operand read from the
    /// slot just written takes the value from a register instead of memory, which keeps the
    /// store-to-load round trip off the critical path of a chain.
    #[inline(always)]
    pub(crate) fn eval_after(&self, vals: &[Value], last_slot: u32, last: f64) -> Option<f64> {
        let get = |s: u32| {
            if s == last_slot {
                Some(last)
            } else {
                float(vals, s)
            }
        };
        Some(match self.code {
            Code::Const(x) => x,
            Code::Unary(f, a) => f(get(a)?),
            Code::Binary(f, a, b) => f(get(a)?, get(b)?),
            Code::Ternary(f, a, b, c) => f(get(a)?, get(b)?, get(c)?),
        })
    }
}

/// Every node's kernel, and the constant slots their constant operands live in.
#[derive(Default)]
pub(crate) struct Kernels {
    instr: Vec<Option<KInstr>>,
    /// Per node: its first constant slot (one per constant input).
    const_base: Vec<u32>,
    /// Slots needed after the plan's outputs.
    extra: usize,
}

impl Kernels {
    /// Lay out constant slots for `plan`; call [`Kernels::lower_all`] once the value slots
    /// are sized to `plan.total_outputs() + self.extra()`.
    pub(crate) fn new(plan: &Plan) -> Self {
        let mut next = plan.total_outputs();
        let const_base = (0..plan.len())
            .map(|v| {
                let base = next as u32;
                next += plan
                    .inputs(v)
                    .iter()
                    .filter(|s| matches!(s, Source::Const(_)))
                    .count();
                base
            })
            .collect();
        Kernels {
            instr: vec![None; plan.len()],
            const_base,
            extra: next - plan.total_outputs(),
        }
    }
    /// Constant slots to append to the value slots.
    pub(crate) fn extra(&self) -> usize {
        self.extra
    }
    /// Lower every node.
    pub(crate) fn lower_all(&mut self, plan: &Plan, vals: &mut [Value]) {
        for v in 0..plan.len() {
            self.lower(plan, v, vals);
        }
    }
    /// Lower node `v` again (after a value edit), writing its constants into their slots.
    pub(crate) fn lower(&mut self, plan: &Plan, v: usize, vals: &mut [Value]) {
        if let Some(slot) = self.instr.get_mut(v) {
            *slot = lower(plan, v, self.const_base[v], vals);
        }
    }
    /// Node `v`'s kernel.
    #[inline(always)]
    pub(crate) fn get(&self, v: usize) -> Option<KInstr> {
        self.instr[v]
    }
}

/// Store a float into a slot, in place when it already holds one (the usual case from the
/// previous run), which avoids building and moving a whole [`Value`].
#[inline(always)]
pub(crate) fn set_float(slot: &mut Value, r: f64) {
    match slot {
        Value::Float(x) => *x = r,
        other => *other = Value::Float(r),
    }
}

/// Lower node `v` to a kernel when its op offers one for its (static) input types; its
/// constant operands are written into slots from `const_base` on.
fn lower(plan: &Plan, v: usize, const_base: u32, vals: &mut [Value]) -> Option<KInstr> {
    if plan.n_outputs(v) != 1 || plan.output_types(v) != [ValueType::Float] || plan.is_lazy(v) {
        return None;
    }
    let inputs = plan.inputs(v);
    let types: Vec<Option<ValueType>> = inputs
        .iter()
        .map(|s| match s {
            Source::Wire { node, port } => plan
                .output_types(*node as usize)
                .get(*port as usize)
                .copied(),
            Source::Const(c) => c.value_type(),
            Source::Empty => None,
        })
        .collect();
    if types.iter().any(|t| *t != Some(ValueType::Float)) {
        return None;
    }
    let kernel = plan.op(v).kernel(&types, plan.params(v))?;
    if kernel.arity() != inputs.len() {
        return None;
    }
    let mut next_const = const_base;
    let mut slots = [0u32; 3];
    for (i, s) in inputs.iter().enumerate() {
        slots[i] = match s {
            Source::Wire { node, port } => {
                (plan.output_offset(*node as usize) + *port as usize) as u32
            }
            Source::Const(c @ Value::Float(_)) => {
                let slot = next_const;
                vals[slot as usize] = c.clone();
                next_const += 1;
                slot
            }
            _ => return None,
        };
    }
    let code = match kernel {
        Kernel::Const(x) => Code::Const(x),
        Kernel::Unary(f) => Code::Unary(f, slots[0]),
        Kernel::Binary(f) => Code::Binary(f, slots[0], slots[1]),
        Kernel::Ternary(f) => Code::Ternary(f, slots[0], slots[1], slots[2]),
    };
    Some(KInstr {
        out: plan.output_offset(v) as u32,
        code,
    })
}
