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
    /// Which call site runs the function (see [`call_site`]).
    site: u8,
    code: Code,
}

/// Call sites of kernel functions: the first `SITES - 1` distinct functions of a plan each get
/// a call instruction of their own, the others share the last.
const SITES: u8 = 4;

/// Call `f` through the call instruction of `site`.
///
/// Every kernel function is reached through a function pointer. With a single call
/// instruction, a chain that alternates two functions (`math.add`, `math.mul`) leaves the
/// indirect-branch predictor of some machines (the benchmark VM's) nothing to tell the next
/// target by, so it mispredicts every node: about 12 ns a node, four times the flat
/// interpreter. Branching on `site` first puts the function's identity into the branch
/// history and gives each function a call site whose target never changes. Any site runs the
/// same `f`, so the site only affects speed.
#[inline(always)]
fn call_site(site: u8, f: Bin, x: f64, y: f64) -> f64 {
    match site {
        0 => site_call::<0>(f, x, y),
        1 => site_call::<1>(f, x, y),
        2 => site_call::<2>(f, x, y),
        _ => site_call::<3>(f, x, y),
    }
}

/// One call site: each `N` a call instruction of its own (the `black_box` keeps the compiler
/// from merging the sites back into one).
#[inline(always)]
fn site_call<const N: u8>(f: Bin, x: f64, y: f64) -> f64 {
    std::hint::black_box(N);
    f(x, y)
}

/// [`call_site`] for a unary function.
#[inline(always)]
fn call_site_unary(site: u8, f: Un, x: f64) -> f64 {
    match site {
        0 => site_call_unary::<0>(f, x),
        1 => site_call_unary::<1>(f, x),
        2 => site_call_unary::<2>(f, x),
        _ => site_call_unary::<3>(f, x),
    }
}

/// One call site of a unary function (see [`site_call`]).
#[inline(always)]
fn site_call_unary<const N: u8>(f: Un, x: f64) -> f64 {
    std::hint::black_box(N);
    f(x)
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
            Code::Unary(f, a) => call_site_unary(self.site, f, float(vals, a)?),
            Code::Binary(f, a, b) => call_site(self.site, f, float(vals, a)?, float(vals, b)?),
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
            Code::Unary(f, a) => call_site_unary(self.site, f, get(a)?),
            Code::Binary(f, a, b) => call_site(self.site, f, get(a)?, get(b)?),
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
    /// The addresses of the functions given a call site of their own, in order of first
    /// lowering (site `i` is `sites[i]`); see [`call_site`].
    sites: Vec<usize>,
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
            sites: Vec::new(),
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
            *slot = lower(plan, v, self.const_base[v], vals, &mut self.sites);
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
        other => replace_with_float(other, r),
    }
}

/// The rare case of [`set_float`] (the slot held something else, which is dropped), out of
/// line: a call in a kernel loop's body would force the loop's forwarded float result into
/// a stack slot (every vector register is clobbered by a call), putting a store and a load
/// back on a chain's critical path.
#[cold]
#[inline(never)]
fn replace_with_float(slot: &mut Value, r: f64) {
    *slot = Value::Float(r);
}

/// Lower node `v` to a kernel when its op offers one for its (static) input types; its
/// constant operands are written into slots from `const_base` on.
fn lower(
    plan: &Plan,
    v: usize,
    const_base: u32,
    vals: &mut [Value],
    sites: &mut Vec<usize>,
) -> Option<KInstr> {
    // A node with rules runs through `execute_node`, which checks them.
    if plan.n_outputs(v) != 1
        || plan.output_types(v) != [ValueType::Float]
        || plan.is_lazy(v)
        || plan.has_rules(v)
    {
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
    let (code, address) = match kernel {
        Kernel::Const(x) => (Code::Const(x), None),
        Kernel::Unary(f) => (Code::Unary(f, slots[0]), Some(f as usize)),
        Kernel::Binary(f) => (Code::Binary(f, slots[0], slots[1]), Some(f as usize)),
        // Three-operand kernels are rare (an `#[op]` function of three floats): one shared call site.
        Kernel::Ternary(f) => (Code::Ternary(f, slots[0], slots[1], slots[2]), None),
    };
    Some(KInstr {
        out: plan.output_offset(v) as u32,
        site: address.map_or(SITES - 1, |a| site_of(sites, a)),
        code,
    })
}

/// The call site of the function at `address`: its own while fewer than [`SITES`] functions
/// have one, else the shared last site.
fn site_of(sites: &mut Vec<usize>, address: usize) -> u8 {
    if let Some(i) = sites.iter().position(|&s| s == address) {
        return i as u8;
    }
    if sites.len() < usize::from(SITES - 1) {
        sites.push(address);
        return (sites.len() - 1) as u8;
    }
    SITES - 1
}
