//! The layouts XLA's conversion gives the results of the entry function,
//! which can depend on the body.
//!
//! XLA converts StableHLO to HLO with `XlaBuilder`
//! (`xla/hlo/translate/mhlo_to_hlo/mlir_hlo_to_hlo.cc`) after simplifying
//! the module (`StablehloAggressiveSimplification`, the folder and the
//! canonicalizer, `xla/hlo/translate/stablehlo.cc`). Every operation's
//! shape comes from `ShapeInference`, and most shapes are made with the
//! default (descending) layout; a few keep or permute their operand's
//! layout: a transpose permutes it (`ShapeUtil::PermuteDimensions`),
//! element-wise operations keep their first operand's
//! (`ShapeUtil::ChangeElementType`), tuples, `while` loops and optimization
//! barriers keep their operands', a `case` its first branch's, a call its
//! callee's result, a custom call its `result_layouts`. The entry
//! computation layout's result is the root's shape, so a final transpose
//! gives `{0,1}`.
//!
//! This module follows those rules forward through each function, keeping
//! a fact only for values whose layout is not the default one (and for
//! constants, which the simplification folds and moves to the right of
//! commutative operations). It is a model of the conversion, checked
//! against it on the programs of `tests/data/stablehlo/` (see
//! `docs/stablehlo.md`); the simplifier's rewrites beyond constants and
//! identities are not modelled.

use std::collections::HashMap;

use super::types::Type;

/// What is known of a value's layout in XLA's conversion.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Fact {
    /// A constant, or a value the simplification folds into one: default
    /// layout, and moved to the right of a commutative operation.
    Constant,
    /// An array whose layout is this minor-to-major order.
    Layout(Box<[i64]>),
    /// Result `index` of a call of the function `callee` (that function's
    /// result, known once it is read), each entry `d` of its minor-to-major
    /// order then replaced by `map[d]` (the transposes since; empty for
    /// none).
    Call {
        callee: Box<str>,
        index: usize,
        map: Box<[i64]>,
    },
    /// A tuple, with a fact for each element.
    Tuple(Box<[Option<Fact>]>),
}

/// The facts of the values in scope.
#[derive(Default)]
pub(crate) struct Flow {
    scopes: Vec<HashMap<Box<str>, Fact, foldhash::fast::RandomState>>,
}

/// What the rules see of an operation.
pub(crate) struct OpView<'a, 'b> {
    /// The name, as written (`stablehlo.add`, `call`).
    pub name: &'a str,
    /// The operation's attributes: its text from its name to its end, or
    /// what the bytecode reader decoded.
    pub attrs: OpAttrs<'a>,
    /// The values it uses, in order (`%0`, `%1#2`).
    pub operands: &'b [&'a str],
    /// The operand types of a functional type (`(t1, t2) -> t3`).
    pub operand_types: Option<&'b [Type]>,
    /// The result types.
    pub result_types: &'b [Type],
    /// The facts of the values the first region returns.
    pub region_result: Option<&'b [Option<Fact>]>,
}

/// The attributes of an operation that the layout rules read.
#[derive(Clone, Copy)]
pub(crate) enum OpAttrs<'a> {
    /// The operation's text from its name to its end, searched for them.
    Text(&'a str),
    /// Decoded from bytecode.
    Decoded(&'a DecodedAttrs),
}

/// The attributes the layout rules read, decoded from bytecode.
#[derive(Clone, Debug, Default)]
pub(crate) struct DecodedAttrs {
    /// `permutation` of a transpose, `broadcast_dimensions` of a
    /// `broadcast_in_dim`.
    pub dims: Option<Vec<i64>>,
    /// `index` of a `get_tuple_element`.
    pub index: Option<i64>,
    /// The callee of a call.
    pub callee: Option<String>,
    /// The `result_layouts` of a custom call.
    pub result_layouts: Option<Vec<Vec<i64>>>,
}

impl OpAttrs<'_> {
    /// The permutation of a transpose or the dimensions of a broadcast.
    fn dims(&self, keys: &[&str]) -> Option<Vec<i64>> {
        match self {
            OpAttrs::Text(text) => int_list_after(text, keys),
            OpAttrs::Decoded(d) => d.dims.clone(),
        }
    }

    /// The index of a `get_tuple_element`.
    fn tuple_index(&self) -> Option<i64> {
        match self {
            OpAttrs::Text(text) => int_list_after(text, &["index"])
                .and_then(|v| v.first().copied())
                .or_else(|| bracket_index(text)),
            OpAttrs::Decoded(d) => d.index,
        }
    }

    /// The callee of a call.
    fn callee(&self) -> Option<String> {
        match self {
            OpAttrs::Text(text) => callee(text),
            OpAttrs::Decoded(d) => d.callee.clone(),
        }
    }

    /// The `result_layouts` of a custom call.
    fn result_layouts(&self) -> Option<Vec<Vec<i64>>> {
        match self {
            OpAttrs::Text(text) => result_layouts(text),
            OpAttrs::Decoded(d) => d.result_layouts.clone(),
        }
    }
}

/// Element-wise operations of one operand: `InferUnaryOpShape` (and
/// `InferConvertShape`, `InferReducePrecisionShape`) keep the operand's
/// layout.
const UNARY: &[&str] = &[
    "abs",
    "cbrt",
    "ceil",
    "convert",
    "cosine",
    "count_leading_zeros",
    "exponential",
    "exponential_minus_one",
    "floor",
    "imag",
    "is_finite",
    "log",
    "log_plus_one",
    "logistic",
    "negate",
    "not",
    "popcnt",
    "real",
    "reduce_precision",
    "round_nearest_afz",
    "round_nearest_even",
    "rsqrt",
    "sign",
    "sine",
    "sqrt",
    "tan",
    "tanh",
];

/// Element-wise operations of two operands: `InferElementwiseBinaryOpShape`
/// keeps the first operand's layout.
const BINARY: &[&str] = &[
    "add",
    "and",
    "atan2",
    "compare",
    "complex",
    "divide",
    "maximum",
    "minimum",
    "multiply",
    "or",
    "power",
    "remainder",
    "shift_left",
    "shift_right_arithmetic",
    "shift_right_logical",
    "subtract",
    "xor",
];

/// The binary operations whose constant first operand the simplification
/// moves to the right (StableHLO's commutative operations, and `compare`,
/// whose direction it swaps).
const SWAPPED: &[&str] = &[
    "add", "and", "compare", "maximum", "minimum", "multiply", "or", "xor",
];

impl Flow {
    /// Starts a function: nothing of another function is in scope.
    pub(crate) fn enter_function(&mut self) {
        self.scopes.clear();
        self.scopes.push(HashMap::default());
    }

    /// Enters a region.
    pub(crate) fn enter_region(&mut self) {
        self.scopes.push(HashMap::default());
    }

    /// Leaves a region.
    pub(crate) fn leave(&mut self) {
        self.scopes.pop();
    }

    /// The fact of `value`: a value of an enclosing region keeps only its
    /// being a constant (a region is a computation of its own, whose
    /// captured values are parameters of default layout).
    pub(crate) fn get(&self, value: &str) -> Option<Fact> {
        let last = self.scopes.len().checked_sub(1)?;
        for (i, scope) in self.scopes.iter().enumerate().rev() {
            if let Some(f) = scope.get(value) {
                return if i == last || *f == Fact::Constant {
                    Some(f.clone())
                } else {
                    None
                };
            }
        }
        None
    }

    /// Records the fact of `value` (nothing for the default layout).
    pub(crate) fn set(&mut self, value: &str, fact: Option<Fact>) {
        if let (Some(f), Some(scope)) = (fact, self.scopes.last_mut()) {
            scope.insert(value.into(), f);
        }
    }

    /// Applies the rules to one operation, as both readers do once its
    /// result types are known: records the facts of its results
    /// (`result_names` names them in order; read only when a result has a
    /// fact) and, for the first terminator of a region, the facts of the
    /// values it returns into `returned`. `facts` is a buffer kept from one
    /// operation to the next.
    pub(crate) fn apply(
        &mut self,
        op: &OpView<'_, '_>,
        result_names: impl IntoIterator<Item = String>,
        is_terminator: bool,
        facts: &mut Vec<Option<Fact>>,
        returned: &mut Option<Vec<Option<Fact>>>,
    ) {
        self.results(op, facts);
        if facts.iter().any(Option::is_some) {
            for (n, f) in result_names.into_iter().zip(facts.drain(..)) {
                self.set(&n, f);
            }
        }
        if is_terminator && returned.is_none() {
            *returned = Some(op.operands.iter().map(|o| self.get(o)).collect());
        }
    }

    /// The facts of an operation's results, into `out` (one per result).
    pub(crate) fn results(&self, op: &OpView<'_, '_>, out: &mut Vec<Option<Fact>>) {
        let n = op.result_types.len();
        out.clear();
        out.resize(n, None);
        if n == 0 {
            return;
        }
        let base = op
            .name
            .strip_prefix("stablehlo.")
            .or_else(|| op.name.strip_prefix("mhlo."))
            .or_else(|| op.name.strip_prefix("func."))
            .unwrap_or(op.name);
        let fact = |i: usize| op.operands.get(i).and_then(|o| self.get(o));
        // What the folder does not fold keeps no constant.
        let value = |i: usize| fact(i).filter(|f| *f != Fact::Constant);
        let all_constant = !op.operands.is_empty()
            && op
                .operands
                .iter()
                .all(|o| self.get(o) == Some(Fact::Constant));
        let identity = op
            .operand_types
            .is_none_or(|t| t.first() == op.result_types.first());
        out[0] = match base {
            "constant" => Some(Fact::Constant),
            _ if op.result_types.iter().all(is_empty_array) => Some(Fact::Constant),
            _ if UNARY.contains(&base) => fact(0),
            _ if BINARY.contains(&base) => {
                if all_constant {
                    Some(Fact::Constant)
                } else if SWAPPED.contains(&base) && fact(0) == Some(Fact::Constant) {
                    fact(1)
                } else {
                    fact(0)
                }
            }
            "transpose" => match fact(0) {
                Some(Fact::Constant) => Some(Fact::Constant),
                f => op
                    .attrs
                    .dims(&["dims", "permutation"])
                    .and_then(|perm| permute(f, &perm, &op.result_types[0])),
            },
            "broadcast_in_dim" => {
                let f = fact(0);
                if f == Some(Fact::Constant) {
                    Some(Fact::Constant)
                } else {
                    broadcast_as_transpose(op)
                        .and_then(|perm| permute(f, &perm, &op.result_types[0]))
                }
            }
            "reverse" | "dynamic_update_slice" | "scatter" => fact(0),
            // The casts the bytecode holds between VHLO's types and other
            // dialects' go when it is read back.
            "builtin.unrealized_conversion_cast" if op.operands.len() == 1 => fact(0),
            // `InferSelectShape` keeps the predicate's layout; the same
            // value on both sides is that value.
            "select" if op.operands.len() == 3 && op.operands[1] == op.operands[2] => fact(1),
            "select" => fact(0),
            // `InferClampShape` keeps the operand's.
            "clamp" => fact(1),
            "reshape" | "slice" | "pad" | "concatenate" => {
                if all_constant {
                    Some(Fact::Constant)
                } else if identity && op.operands.len() == 1 {
                    fact(0)
                } else {
                    None
                }
            }
            "get_tuple_element" => {
                let index = op.attrs.tuple_index();
                match (fact(0), index) {
                    (Some(Fact::Tuple(elements)), Some(i)) => usize::try_from(i)
                        .ok()
                        .and_then(|i| elements.get(i).cloned().flatten()),
                    _ => None,
                }
            }
            "tuple" => {
                let elements: Vec<Option<Fact>> = (0..op.operands.len()).map(fact).collect();
                elements
                    .iter()
                    .any(Option::is_some)
                    .then(|| Fact::Tuple(elements.into()))
            }
            "while" | "optimization_barrier" | "sort" => {
                for (i, slot) in out.iter_mut().enumerate() {
                    *slot = value(i);
                }
                return;
            }
            "case" | "if" => {
                if let Some(r) = op.region_result.filter(|r| r.len() == n) {
                    for (slot, f) in out.iter_mut().zip(r) {
                        *slot = f.clone().filter(|f| *f != Fact::Constant);
                    }
                    return;
                }
                None
            }
            "call" => {
                if let Some(callee) = op.attrs.callee() {
                    for (i, slot) in out.iter_mut().enumerate() {
                        *slot = Some(Fact::Call {
                            callee: callee.as_str().into(),
                            index: i,
                            map: Box::new([]),
                        });
                    }
                }
                return;
            }
            "custom_call" => {
                if let Some(layouts) = op.attrs.result_layouts() {
                    for (slot, (layout, ty)) in
                        out.iter_mut().zip(layouts.into_iter().zip(op.result_types))
                    {
                        *slot = layout_fact(layout, ty);
                    }
                }
                return;
            }
            _ => None,
        };
    }
}

/// The fact of an array of type `ty` with layout `minor_to_major`: `None`
/// when it is the default one.
/// The names of an operation's results, one per result, as MLIR prints
/// them: `%0` for the one result of `%0`, `%0#1` for the second of `%0:2`.
/// `groups` pairs each name with its number of results.
pub(crate) fn result_names<N: std::fmt::Display>(groups: &[(N, usize)]) -> Vec<String> {
    let mut names = Vec::new();
    for (name, count) in groups {
        if *count == 1 {
            names.push(format!("%{name}"));
        } else {
            names.extend((0..*count).map(|i| format!("%{name}#{i}")));
        }
    }
    names
}

fn layout_fact(minor_to_major: Vec<i64>, ty: &Type) -> Option<Fact> {
    let rank = rank(ty)?;
    if minor_to_major.len() != rank {
        return None;
    }
    let descending = (0..rank as i64).rev().eq(minor_to_major.iter().copied());
    (!descending).then(|| Fact::Layout(minor_to_major.into()))
}

/// Whether `ty` is an array of no elements, which the folder makes a
/// constant.
fn is_empty_array(ty: &Type) -> bool {
    matches!(ty, Type::Tensor(t) if t.dimensions.as_ref().is_some_and(|d| d.contains(&0)))
}

/// The rank of a tensor type.
fn rank(ty: &Type) -> Option<usize> {
    match ty {
        Type::Tensor(t) => t.dimensions.as_ref().map(Vec::len),
        _ => None,
    }
}

/// The layout of a transpose by `perm` of an operand with fact `operand`,
/// as `ShapeUtil::PermuteDimensions(InversePermutation(perm), shape)`
/// makes it: minor-to-major entry `i` is the inverse permutation of the
/// operand's entry `i`.
fn permute(operand: Option<Fact>, perm: &[i64], result: &Type) -> Option<Fact> {
    let rank = rank(result)?;
    if perm.len() != rank {
        return None;
    }
    let mut inverse = vec![-1i64; rank];
    for (j, &p) in perm.iter().enumerate() {
        let p = usize::try_from(p).ok().filter(|&p| p < rank)?;
        if inverse[p] >= 0 {
            return None;
        }
        inverse[p] = j as i64;
    }
    let base: Vec<i64> = match operand {
        Some(Fact::Layout(l)) if l.len() == rank => l.into(),
        Some(Fact::Call { callee, index, map }) => {
            // Known once the callee is read: compose the maps.
            let map = if map.is_empty() {
                inverse
            } else {
                map.iter()
                    .map(|&d| {
                        usize::try_from(d)
                            .ok()
                            .and_then(|d| inverse.get(d).copied())
                    })
                    .collect::<Option<Vec<i64>>>()?
            };
            return Some(Fact::Call {
                callee,
                index,
                map: map.into(),
            });
        }
        _ => (0..rank as i64).rev().collect(),
    };
    let mut layout = Vec::with_capacity(rank);
    for &d in &base {
        layout.push(inverse[usize::try_from(d).ok().filter(|&d| d < rank)?]);
    }
    layout_fact(layout, result)
}

/// A `broadcast_in_dim` that only reorders its operand's dimensions is a
/// transpose to the simplification: its permutation.
fn broadcast_as_transpose(op: &OpView<'_, '_>) -> Option<Vec<i64>> {
    let dims = op.attrs.dims(&["dims", "broadcast_dimensions"])?;
    let operand = match op.operand_types?.first()? {
        Type::Tensor(t) => t.dimensions.as_ref()?,
        _ => return None,
    };
    let result = match op.result_types.first()? {
        Type::Tensor(t) => t.dimensions.as_ref()?,
        _ => return None,
    };
    if operand.len() != result.len() || dims.len() != operand.len() {
        return None;
    }
    let mut perm = vec![0i64; dims.len()];
    for (i, &d) in dims.iter().enumerate() {
        let d = usize::try_from(d).ok().filter(|&d| d < result.len())?;
        if result[d] != operand[i] {
            return None;
        }
        perm[d] = i as i64;
    }
    Some(perm)
}

/// The integers of the list after the first of `keys` followed by `=`
/// (`dims = [1, 0]`, `permutation = array<i64: 1, 0>`, `index = 1 : i32`):
/// digits that follow a letter (`i64`) are not numbers. Returns `None`
/// when no key is there.
fn int_list_after(text: &str, keys: &[&str]) -> Option<Vec<i64>> {
    let bytes = text.as_bytes();
    let start = keys.iter().find_map(|key| {
        let mut from = 0;
        while let Some(i) = text[from..].find(key) {
            let at = from + i;
            let after = text[at + key.len()..].trim_start();
            let before_ok = at == 0 || !super::cursor::is_id_char(bytes[at - 1]);
            if before_ok && after.starts_with('=') {
                return Some(text.len() - after.len() + 1);
            }
            from = at + key.len();
        }
        None
    })?;
    let rest = text[start..].trim_start();
    let end = match rest.as_bytes().first() {
        Some(b'[') => rest.find(']').map(|i| i + 1),
        Some(b'a' | b'd') => rest.find('>').map(|i| i + 1),
        _ => rest.find([',', '}', '>', ':']),
    }
    .unwrap_or(rest.len());
    let list = &rest[..end];
    let mut numbers = Vec::new();
    let lb = list.as_bytes();
    let mut i = 0;
    while i < lb.len() {
        if lb[i].is_ascii_digit() {
            let s = i;
            while i < lb.len() && lb[i].is_ascii_digit() {
                i += 1;
            }
            let after_letter = s > 0 && lb[s - 1].is_ascii_alphabetic();
            if !after_letter {
                let negative = s > 0 && lb[s - 1] == b'-';
                let n: i64 = list[s..i].parse().ok()?;
                numbers.push(if negative { -n } else { n });
            }
        } else {
            i += 1;
        }
    }
    Some(numbers)
}

/// `%0[1]` of a `get_tuple_element`: the index in its first brackets.
fn bracket_index(text: &str) -> Option<i64> {
    let open = text.find('[')?;
    let close = text[open..].find(']')? + open;
    text[open + 1..close].trim().parse().ok()
}

/// The callee of a call: the first `@name` (or `@"name"`).
fn callee(text: &str) -> Option<String> {
    let at = text.find('@')?;
    let mut c = super::cursor::Cursor::new(&text[at + 1..]);
    if c.peek() == Some(b'"') {
        return c.string().ok().map(super::cursor::unescape);
    }
    c.suffix_id().map(str::to_owned)
}

/// The `result_layouts` of a custom call: one minor-to-major list per
/// result (`dense<[1, 0]> : tensor<2xindex>`, a splat `dense<0> :
/// tensor<1xindex>`, `dense<> : tensor<0xindex>`).
fn result_layouts(text: &str) -> Option<Vec<Vec<i64>>> {
    let key = text.find("result_layouts")?;
    let rest = &text[key..];
    let open = rest.find('[')?;
    let mut depth = 0usize;
    let mut end = None;
    for (i, c) in rest[open..].char_indices() {
        match c {
            '[' | '<' => depth += 1,
            ']' | '>' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    end = Some(open + i);
                    break;
                }
            }
            _ => {}
        }
    }
    let list = &rest[open + 1..end?];
    let mut layouts = Vec::new();
    let mut from = 0;
    while let Some(i) = list[from..].find("dense<") {
        let start = from + i + "dense<".len();
        let close = list[start..].find('>')? + start;
        let inner = list[start..close].trim();
        let after = &list[close..];
        let count = after
            .find("tensor<")
            .and_then(|t| {
                let digits: String = after[t + 7..]
                    .chars()
                    .take_while(char::is_ascii_digit)
                    .collect();
                digits.parse::<usize>().ok()
            })
            .unwrap_or(0);
        let values: Vec<i64> = if let Some(list) = inner.strip_prefix('[') {
            list.trim_end_matches(']')
                .split(',')
                .filter(|s| !s.trim().is_empty())
                .map(|s| s.trim().parse().ok())
                .collect::<Option<_>>()?
        } else if inner.is_empty() {
            Vec::new()
        } else {
            vec![inner.parse().ok()?; count]
        };
        layouts.push(values);
        from = close;
    }
    Some(layouts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn int_lists() {
        assert_eq!(
            int_list_after("x, dims = [1, 0] : t", &["dims"]),
            Some(vec![1, 0])
        );
        assert_eq!(
            int_list_after(
                "<{permutation = array<i64: 2, 0, 1>}>",
                &["dims", "permutation"]
            ),
            Some(vec![2, 0, 1])
        );
        assert_eq!(
            int_list_after("<{index = 3 : i32}>", &["index"]),
            Some(vec![3])
        );
        assert_eq!(int_list_after("xdims = [1]", &["dims"]), None);
    }

    #[test]
    fn custom_call_layouts() {
        let text = "stablehlo.custom_call @f(%0) {result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>, dense<0> : tensor<1xindex>]} : (t) -> t";
        assert_eq!(
            result_layouts(text),
            Some(vec![vec![0, 1], vec![], vec![0]])
        );
    }

    #[test]
    fn transposes_permute_the_layout() {
        let t: Type = "tensor<4x2x3xf32>".parse().unwrap();
        // transpose(x: f32[2,3,4]{2,1,0}, dims=[2,0,1]): XLA gives {0,2,1}.
        assert_eq!(
            permute(None, &[2, 0, 1], &t),
            Some(Fact::Layout(vec![0, 2, 1].into()))
        );
        let t: Type = "tensor<3x2xf32>".parse().unwrap();
        assert_eq!(
            permute(None, &[1, 0], &t),
            Some(Fact::Layout(vec![0, 1].into()))
        );
        assert_eq!(
            permute(Some(Fact::Layout(vec![0, 1].into())), &[1, 0], &t),
            None
        );
    }
}
