//! The estimate for a module without XLA's buffer assignment: XLA's buffer
//! assignment simulated on the module as it is.
//!
//! 1. **Buffers** (`HloAliasAnalysis`, `xla/hlo/analysis/`): every subshape
//!    of every instruction that runs in sequence is a position (a tuple's
//!    index table included); positions that hold the same data are one
//!    buffer. A `get-tuple-element` is its operand's element, a `tuple`'s
//!    elements are its operands (it defines only its index table), a
//!    `bitcast`, `optimization-barrier`, `domain` or `add-dependency` is its
//!    operand; a `while` is its operand, its body's and condition's
//!    parameter and its body's root; a `conditional`'s branches take their
//!    operands as parameters and give their roots as its result, a `call`
//!    likewise; `output_to_operand_aliasing` and the module's
//!    `input_output_alias` (or, without one, its buffer donors matched to
//!    outputs of the same shape, as `OptimizeInputOutputBufferAlias` does)
//!    join an output to an operand or a parameter. Fused computations and
//!    reducers run in a thread's own buffers and take none here.
//! 2. **Liveness** (`HloLiveRange`): the program is flattened (a while's
//!    condition and body, a conditional's branches, a call's computation
//!    before the instruction), and each buffer is live from its first
//!    definition to its last use; the result lives to the end.
//! 3. **Reuse** (`HeapSimulator::RunComputation`): an instruction that
//!    defines a buffer of its own may take over the buffer of an operand
//!    that dies at it, when XLA allows it
//!    (`HloDataflowAnalysis::CanShareOperandBufferWithUser`): the same
//!    shape and an elementwise user, a loop fusion that uses the operand
//!    elementwise or updates it in place, a `dynamic-update-slice` or a
//!    `scatter` on its first operand.
//! 4. **Packing** (`GlobalDecreasingSizeBestFitHeap`): the temporaries
//!    (buffers that are no argument, output or constant) are packed into
//!    one block per memory space (`heap.rs`).

use super::graph::{Flat, Graph};
use super::heap::{Interval, pack};
use super::{
    AllocationKind, EstimateOptions, HostBytes, Map, MemoryAnalysis, PeakBuffer, Set, Source, Step,
    add, by_kind, sample,
};
use crate::error::Result;
use crate::hlo::{HloInstruction, HloModule};
use crate::model::Shape;
use crate::shape_util::{byte_size_of, for_each_subshape};

/// XLA's `Layout::kHostMemorySpace`.
const HOST_MEMORY_SPACE: i64 = 5;
/// Tuple index tables hold 8-byte pointers, as on every 64-bit backend.
const POINTER_SIZE: i64 = 8;

/// The number of subshapes of `shape` (itself included).
fn subshape_count(shape: &Shape) -> usize {
    match shape {
        Shape::Tuple(elements) => 1 + elements.iter().map(subshape_count).sum::<usize>(),
        _ => 1,
    }
}

/// The subshapes of `shape` in pre-order (XLA's `ForEachSubshape`), as
/// references into it. Shapes nest at most `MAX_NESTING_DEPTH` levels.
fn pre_order<'s>(shape: &'s Shape, out: &mut Vec<&'s Shape>) {
    out.push(shape);
    if let Shape::Tuple(elements) = shape {
        for e in elements {
            pre_order(e, out);
        }
    }
}

/// The shape of an instruction, if valid.
fn shape_of(i: &HloInstruction) -> Option<&Shape> {
    i.shape.as_ref().ok()
}

/// The pre-order position of subshape `index` in `shape`, and its shape.
fn offset_of<'s>(shape: &'s Shape, index: &[i64]) -> Option<(usize, &'s Shape)> {
    let mut offset = 0;
    let mut s = shape;
    for &k in index {
        let elements = s.tuple_shapes()?;
        let k = usize::try_from(k).ok().filter(|&k| k < elements.len())?;
        offset += 1 + elements[..k].iter().map(subshape_count).sum::<usize>();
        s = &elements[k];
    }
    Some((offset, s))
}

/// What a buffer holds, in the order an allocation is named by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Holds {
    Parameter,
    Output,
    Constant,
    Temporary,
}

/// A union-find over positions.
struct Sets {
    parent: Vec<u32>,
}

impl Sets {
    fn new(n: usize) -> Self {
        Sets {
            parent: (0..n as u32).collect(),
        }
    }

    fn find(&mut self, mut x: u32) -> u32 {
        let mut root = x;
        while self.parent[root as usize] != root {
            root = self.parent[root as usize];
        }
        while self.parent[x as usize] != root {
            let next = self.parent[x as usize];
            self.parent[x as usize] = root;
            x = next;
        }
        root
    }

    fn union(&mut self, a: u32, b: u32) {
        let (a, b) = (self.find(a), self.find(b));
        if a != b {
            // The smaller index stays the root.
            let (root, child) = if a < b { (a, b) } else { (b, a) };
            self.parent[child as usize] = root;
        }
    }
}

/// Positions: the subshapes of the instructions that run in sequence.
struct Positions {
    /// Instruction `i`'s positions are `start[i]..start[i + 1]`.
    start: Vec<u32>,
    /// Each position's bytes (`ShapeUtil::ByteSizeOf`, 8-byte pointers).
    size: Vec<i64>,
    /// Each position's memory space.
    space: Vec<i64>,
    /// Whether a position defines a value (rather than aliasing another).
    defines: Vec<bool>,
}

impl Positions {
    fn of(&self, i: u32) -> std::ops::Range<u32> {
        self.start[i as usize]..self.start[i as usize + 1]
    }

    /// The instruction whose positions hold `pos`, and where among them.
    /// Instructions without positions start where the next one does, and
    /// come before it.
    fn owner(&self, pos: u32) -> (u32, usize) {
        let i = self.start.partition_point(|&s| s <= pos).saturating_sub(1);
        (i as u32, (pos - self.start[i]) as usize)
    }
}

fn positions(graph: &Graph<'_>, flat: &Flat) -> Result<Positions> {
    let n = graph.len();
    let mut p = Positions {
        start: Vec::with_capacity(n + 1),
        size: Vec::new(),
        space: Vec::new(),
        defines: Vec::new(),
    };
    for i in 0..n as u32 {
        p.start.push(p.size.len() as u32);
        if flat.time[i as usize].is_none() {
            continue;
        }
        match shape_of(graph.instruction(i)) {
            Some(shape) => for_each_subshape(shape, |s, _| {
                p.size.push(byte_size_of(s, POINTER_SIZE).unwrap_or(0));
                p.space.push(match s {
                    Shape::Array(a) => a.layout().map_or(0, |l| l.memory_space()),
                    _ => 0,
                });
            }),
            None => {
                p.size.push(0);
                p.space.push(0);
            }
        }
        if p.size.len() >= u32::MAX as usize {
            return Err(crate::Error::new(
                crate::ErrorKind::InvalidArgument,
                "the module has more buffers than memory analysis counts (2^32)",
            ));
        }
    }
    p.start.push(p.size.len() as u32);
    p.defines = vec![true; p.size.len()];
    Ok(p)
}

/// Joins `count` positions of `a` from `a_at` with those of `b` from
/// `b_at`, marking `a`'s as aliases; nothing if either range is out of its
/// instruction's positions.
fn join(
    sets: &mut Sets,
    p: &mut Positions,
    a: std::ops::Range<u32>,
    a_at: usize,
    b: std::ops::Range<u32>,
    b_at: usize,
    count: usize,
) {
    let (a0, b0) = (a.start as usize + a_at, b.start as usize + b_at);
    if a0 + count > a.end as usize || b0 + count > b.end as usize {
        return;
    }
    for k in 0..count {
        sets.union((a0 + k) as u32, (b0 + k) as u32);
        p.defines[a0 + k] = false;
    }
}

/// Joins all positions of `a` with all of `b` when they have as many.
fn join_all(sets: &mut Sets, p: &mut Positions, a: u32, b: u32) {
    let (ra, rb) = (p.of(a), p.of(b));
    if ra.len() == rb.len() {
        join(sets, p, ra.clone(), 0, rb, 0, ra.len());
    }
}

/// Step 1: the buffers.
fn alias(graph: &Graph<'_>, flat: &Flat, p: &mut Positions, sets: &mut Sets) {
    for &i in &flat.order {
        let instruction = graph.instruction(i);
        let operands = graph.operands(i);
        let callees = graph.callees(i);
        let own = p.of(i);
        match instruction.opcode.as_str() {
            "get-tuple-element" => {
                let (Some(&o), Some(k)) = (operands.first(), instruction.tuple_index) else {
                    continue;
                };
                let located = shape_of(graph.instruction(o)).and_then(|s| offset_of(s, &[k]));
                if let Some((at, element)) = located {
                    let count = subshape_count(element);
                    let o_range = p.of(o);
                    join(sets, p, own.clone(), 0, o_range, at, count);
                }
            }
            "tuple" => {
                let mut at = 1;
                for &o in operands {
                    let o_range = p.of(o);
                    let count = o_range.len();
                    join(sets, p, own.clone(), at, o_range, 0, count);
                    at += count;
                }
            }
            "bitcast" | "optimization-barrier" | "domain" | "add-dependency" => {
                if let Some(&o) = operands.first() {
                    join_all(sets, p, i, o);
                }
            }
            "while" => {
                if let Some(&o) = operands.first() {
                    join_all(sets, p, i, o);
                }
                for &c in callees {
                    let c = c as usize;
                    if let Some(Some(param)) = graph.parameters[c].first() {
                        join_all(sets, p, *param, i);
                    }
                }
                // The body (XLA's first called computation) gives the loop
                // state back from its root.
                if let Some(&body) = callees.first()
                    && let Some(root) = graph.root[body as usize]
                {
                    join_all(sets, p, i, root);
                }
            }
            "conditional" => {
                for (k, &c) in callees.iter().enumerate() {
                    let c = c as usize;
                    if let (Some(Some(param)), Some(&o)) =
                        (graph.parameters[c].first(), operands.get(k + 1))
                    {
                        join_all(sets, p, *param, o);
                    }
                    if let Some(root) = graph.root[c] {
                        join_all(sets, p, i, root);
                    }
                }
            }
            "call" => {
                if let Some(&c) = callees.first() {
                    let c = c as usize;
                    for (k, &o) in operands.iter().enumerate() {
                        if let Some(Some(param)) = graph.parameters[c].get(k) {
                            join_all(sets, p, *param, o);
                        }
                    }
                    if let Some(root) = graph.root[c] {
                        join_all(sets, p, i, root);
                    }
                }
            }
            _ => {}
        }
        for a in &instruction.output_operand_aliasing {
            let operand = usize::try_from(a.operand)
                .ok()
                .and_then(|k| operands.get(k).copied());
            let (Some(o), Some(shape)) = (operand, shape_of(instruction)) else {
                continue;
            };
            let out = offset_of(shape, &a.output_index);
            let inp = shape_of(graph.instruction(o)).and_then(|s| offset_of(s, &a.operand_index));
            if let (Some((out_at, s)), Some((in_at, _))) = (out, inp) {
                let o_range = p.of(o);
                join(
                    sets,
                    p,
                    own.clone(),
                    out_at,
                    o_range,
                    in_at,
                    subshape_count(s),
                );
            }
        }
    }
}

/// The positions of the entry computation's result that share a
/// parameter's buffer: the module's `input_output_alias`, or, without one,
/// its buffer donors matched in order to the first output of the same shape
/// not yet matched (XLA's `OptimizeInputOutputBufferAlias`). Each as (output
/// index, parameter number, parameter index).
fn entry_aliases(
    module: &HloModule,
    result: Option<&Shape>,
    parameters: &[Option<&Shape>],
) -> Vec<(Vec<i64>, usize, Vec<i64>)> {
    let mut out: Vec<(Vec<i64>, usize, Vec<i64>)> = module
        .input_output_alias
        .iter()
        .filter_map(|a| {
            Some((
                a.output_index.clone(),
                usize::try_from(a.parameter_number).ok()?,
                a.parameter_index.clone(),
            ))
        })
        .collect();
    if !out.is_empty() || module.buffer_donors.is_empty() {
        return out;
    }
    let Some(result) = result else { return out };
    let mut leaves = Vec::new();
    for_each_subshape(result, |s, index| {
        if s.as_array().is_some() {
            leaves.push((s.clone(), index.as_slice().to_vec()));
        }
    });
    let mut taken = vec![false; leaves.len()];
    for d in &module.buffer_donors {
        let Some(number) = usize::try_from(d.parameter_number).ok() else {
            continue;
        };
        let Some(Some(shape)) = parameters.get(number) else {
            continue;
        };
        let Some((_, donated)) = offset_of(shape, &d.parameter_index) else {
            continue;
        };
        if let Some(k) = (0..leaves.len()).find(|&k| !taken[k] && leaves[k].0 == *donated) {
            taken[k] = true;
            out.push((leaves[k].1.clone(), number, d.parameter_index.clone()));
        }
    }
    out
}

/// XLA's elementwise opcodes (`HloInstruction::IsElementwiseImpl`).
fn is_elementwise(opcode: &str) -> bool {
    matches!(
        opcode,
        "abs"
            | "add"
            | "and"
            | "atan2"
            | "bitcast-convert"
            | "cbrt"
            | "ceil"
            | "clamp"
            | "clz"
            | "compare"
            | "complex"
            | "convert"
            | "cosine"
            | "divide"
            | "erf"
            | "exponential"
            | "exponential-minus-one"
            | "floor"
            | "imag"
            | "is-finite"
            | "log"
            | "log-plus-one"
            | "logistic"
            | "map"
            | "maximum"
            | "minimum"
            | "multiply"
            | "negate"
            | "not"
            | "or"
            | "popcnt"
            | "power"
            | "real"
            | "reduce-precision"
            | "remainder"
            | "round-nearest-afz"
            | "round-nearest-even"
            | "rsqrt"
            | "select"
            | "shift-left"
            | "shift-right-arithmetic"
            | "shift-right-logical"
            | "sign"
            | "sine"
            | "sqrt"
            | "stochastic-convert"
            | "subtract"
            | "tan"
            | "tanh"
            | "xor"
    )
}

/// Who uses each instruction, within its computation.
struct Users {
    start: Vec<u32>,
    users: Vec<u32>,
}

impl Users {
    fn new(graph: &Graph<'_>) -> Self {
        let n = graph.len();
        let mut count = vec![0u32; n + 1];
        for i in 0..n as u32 {
            for &o in graph.operands(i) {
                count[o as usize + 1] += 1;
            }
        }
        for k in 1..=n {
            count[k] += count[k - 1];
        }
        let mut users = vec![0u32; count[n] as usize];
        let mut fill = count.clone();
        for i in 0..n as u32 {
            for &o in graph.operands(i) {
                users[fill[o as usize] as usize] = i;
                fill[o as usize] += 1;
            }
        }
        Users {
            start: count,
            users,
        }
    }

    fn of(&self, i: u32) -> &[u32] {
        &self.users[self.start[i as usize] as usize..self.start[i as usize + 1] as usize]
    }
}

/// XLA's `AreTransitiveUsesElementwiseOrTuple`: every use of `param`, and
/// of its users in turn, is elementwise or a tuple.
fn uses_are_elementwise(graph: &Graph<'_>, users: &Users, param: u32) -> bool {
    let mut stack = vec![param];
    let mut seen = Set::default();
    while let Some(current) = stack.pop() {
        for &u in users.of(current) {
            let opcode = graph.instruction(u).opcode.as_str();
            if !is_elementwise(opcode) && opcode != "tuple" {
                return false;
            }
            if seen.insert(u) {
                stack.push(u);
            }
        }
    }
    true
}

/// Whether the fused computation `c` updates parameter `number` in place:
/// its root (through bitcasts) is a `dynamic-update-slice` or `scatter`
/// whose first operand is that parameter (XLA's in-place input-output
/// pairs of a fusion).
fn updates_in_place(graph: &Graph<'_>, c: usize, number: usize) -> bool {
    let through_bitcasts = |mut i: u32| {
        while graph.instruction(i).opcode == "bitcast" {
            match graph.operands(i).first() {
                Some(&o) => i = o,
                None => break,
            }
        }
        i
    };
    let Some(root) = graph.root[c] else {
        return false;
    };
    let root = through_bitcasts(root);
    if !matches!(
        graph.instruction(root).opcode.as_str(),
        "dynamic-update-slice" | "scatter"
    ) {
        return false;
    }
    let Some(&first) = graph.operands(root).first() else {
        return false;
    };
    graph.parameters[c].get(number) == Some(&Some(through_bitcasts(first)))
}

/// XLA's `CanShareOperandBufferWithUser` for operand `o` of `user` and the
/// user's subshape `user_shape`.
fn can_share(graph: &Graph<'_>, users: &Users, o: u32, user: u32, user_shape: &Shape) -> bool {
    let instruction = graph.instruction(user);
    if instruction.opcode == "copy" {
        return false;
    }
    if shape_of(graph.instruction(o)) != Some(user_shape) {
        return false;
    }
    let operands = graph.operands(user);
    match instruction.opcode.as_str() {
        "fusion" => {
            let kind = instruction.fusion_kind.as_deref();
            if !matches!(kind, Some("kLoop" | "kInput")) {
                return false;
            }
            let (Some(&fused), Some(number)) = (
                graph.callees(user).first(),
                operands.iter().position(|&x| x == o),
            ) else {
                return false;
            };
            let fused = fused as usize;
            if updates_in_place(graph, fused, number) {
                return true;
            }
            match graph.parameters[fused].get(number) {
                Some(Some(param)) => uses_are_elementwise(graph, users, *param),
                _ => false,
            }
        }
        "dynamic-update-slice" | "scatter" => {
            operands.iter().filter(|&&x| x == o).count() == 1 && operands.first() == Some(&o)
        }
        opcode => is_elementwise(opcode),
    }
}

/// The size of allocations of `sizes` bytes placed end to end, each at an
/// offset aligned to `alignment`. XLA's order (a `std::partition` of its
/// allocations) is not reproduced: the one that leaves the most padding
/// goes last, where it leaves none.
fn combine(sizes: &[i64], alignment: i64) -> i64 {
    let parts: Vec<i64> = sizes.iter().copied().filter(|&s| s > 0).collect();
    let pad = |s: i64| super::heap::align_up(s, alignment) - s;
    let Some(last) = (0..parts.len()).max_by_key(|&k| (pad(parts[k]), std::cmp::Reverse(k))) else {
        return 0;
    };
    let mut total = 0i64;
    for (k, &s) in parts.iter().enumerate() {
        if k != last {
            total = super::heap::align_up(total, alignment).saturating_add(s);
        }
    }
    super::heap::align_up(total, alignment).saturating_add(parts[last])
}

/// An allocation of XLA's first pass: a parameter's or an output's, and
/// the buffers placed in it.
struct Allocation {
    size: i64,
    space: i64,
    /// The buffers placed in it, by the start of their live range. Their
    /// ranges meet at most at an end (the buffers do not interfere), so
    /// only the last few that start before a range can meet it.
    members: std::collections::BTreeMap<(u32, usize), u32>,
}

impl Allocation {
    fn new(size: i64, space: i64, b: usize, r: &Ranges<'_>) -> Self {
        let mut a = Allocation {
            size,
            space,
            members: Default::default(),
        };
        a.insert(b, r);
        a
    }

    fn insert(&mut self, b: usize, r: &Ranges<'_>) {
        self.members.insert((r.start[b], b), r.last[b]);
    }

    /// The members whose live range meets `start..=end`.
    fn meeting(&self, start: u32, end: u32) -> impl Iterator<Item = usize> + '_ {
        self.members
            .range(..=(end, usize::MAX))
            .rev()
            .take_while(move |(_, last)| **last >= start)
            .map(|(&(_, m), _)| m)
    }
}

/// The live ranges of buffers, and the position that first defines each.
struct Ranges<'a> {
    start: &'a [u32],
    last: &'a [u32],
    first_definition: &'a [u32],
}

/// XLA's `BufferAssigner::LiveRangeInterferes` for buffers `a` and `b`:
/// their live ranges meet, unless one ends where the other starts and the
/// later one's instruction may take over the earlier one's buffer.
fn interferes(
    graph: &Graph<'_>,
    users: &Users,
    p: &Positions,
    r: &Ranges<'_>,
    a: usize,
    b: usize,
) -> bool {
    let (sa, ea, sb, eb) = (r.start[a], r.last[a], r.start[b], r.last[b]);
    if sa > eb || sb > ea {
        return false;
    }
    let shares = |user: usize, operand: usize| {
        let (u, k) = p.owner(r.first_definition[user]);
        let (o, _) = p.owner(r.first_definition[operand]);
        let user_shape = shape_of(graph.instruction(u)).and_then(|s| {
            let mut all = Vec::new();
            pre_order(s, &mut all);
            all.get(k).copied()
        });
        graph.operands(u).contains(&o)
            && user_shape.is_some_and(|s| can_share(graph, users, o, u, s))
    };
    if eb == sa {
        !shares(a, b)
    } else if ea == sb {
        !shares(b, a)
    } else {
        true
    }
}

pub(super) fn analyze(module: &HloModule, options: &EstimateOptions) -> Result<MemoryAnalysis> {
    let graph = Graph::new(module)?;
    let flat = graph.flatten()?;
    let mut p = positions(&graph, &flat)?;
    let mut sets = Sets::new(p.size.len());
    alias(&graph, &flat, &mut p, &mut sets);

    let entry = graph.entry;
    let end = flat.order.len() as u32;
    let entry_parameters: Vec<Option<u32>> = graph.parameters[entry].clone();
    let root = graph.root[entry];
    let parameter_shapes: Vec<Option<&Shape>> = entry_parameters
        .iter()
        .map(|p| p.and_then(|p| shape_of(graph.instruction(p))))
        .collect();
    let result_shape = root.and_then(|r| shape_of(graph.instruction(r)));
    let aliases = entry_aliases(module, result_shape, &parameter_shapes);
    // Each output that reuses a parameter's buffer is that buffer.
    let mut aliased_positions = Vec::new();
    for (output_index, number, parameter_index) in &aliases {
        let (Some(r), Some(Some(param))) = (root, entry_parameters.get(*number)) else {
            continue;
        };
        let out = result_shape.and_then(|s| offset_of(s, output_index));
        let inp = parameter_shapes[*number].and_then(|s| offset_of(s, parameter_index));
        if let (Some((out_at, s)), Some((in_at, _))) = (out, inp) {
            let (r_range, p_range) = (p.of(r), p.of(*param));
            let count = subshape_count(s);
            join(
                &mut sets,
                &mut p,
                r_range,
                out_at,
                p_range.clone(),
                in_at,
                count,
            );
            if !aliased_positions.contains(&(p_range.start as usize + in_at)) {
                aliased_positions.push(p_range.start as usize + in_at);
            }
        }
    }

    // What each buffer holds, and its live range (step 2).
    let npos = p.size.len();
    let mut holds = vec![Holds::Temporary; npos];
    let mut start = vec![u32::MAX; npos];
    let mut last = vec![0u32; npos];
    let mut values = vec![0u32; npos];
    let mut first_definition = vec![u32::MAX; npos];
    let mut size = vec![0i64; npos];
    let mut space = vec![0i64; npos];
    let mark = |sets: &mut Sets, holds: &mut Vec<Holds>, pos: u32, what: Holds| {
        let b = sets.find(pos) as usize;
        holds[b] = holds[b].min(what);
    };
    for param in entry_parameters.iter().flatten() {
        for pos in p.of(*param) {
            mark(&mut sets, &mut holds, pos, Holds::Parameter);
        }
    }
    if let Some(r) = root {
        for pos in p.of(r) {
            mark(&mut sets, &mut holds, pos, Holds::Output);
        }
    }
    for &i in &flat.order {
        if graph.instruction(i).opcode == "constant" {
            for pos in p.of(i) {
                mark(&mut sets, &mut holds, pos, Holds::Constant);
            }
        }
    }
    for &i in &flat.order {
        let t = flat.time[i as usize].unwrap_or(0);
        let is_entry_parameter = graph.instruction(i).opcode == "parameter"
            && graph.computation_of[i as usize] as usize == entry;
        for pos in p.of(i) {
            let b = sets.find(pos) as usize;
            let defined = if is_entry_parameter { 0 } else { t };
            if p.defines[pos as usize] {
                values[b] += 1;
                start[b] = start[b].min(defined);
                if first_definition[b] == u32::MAX {
                    first_definition[b] = pos;
                }
            }
            last[b] = last[b].max(t);
            size[b] = size[b].max(p.size[pos as usize]);
            space[b] = p.space[pos as usize];
        }
        for &o in graph.operands(i) {
            for pos in p.of(o) {
                let b = sets.find(pos) as usize;
                last[b] = last[b].max(t);
            }
        }
    }
    if let Some(r) = root {
        for pos in p.of(r) {
            let b = sets.find(pos) as usize;
            last[b] = end;
        }
    }
    for b in 0..npos {
        if start[b] == u32::MAX {
            // A buffer of aliases only (a parameter of a computation never
            // called): live where it is seen.
            start[b] = last[b];
        }
    }

    let users = Users::new(&graph);
    let ranges = Ranges {
        start: &start,
        last: &last,
        first_definition: &first_definition,
    };

    // XLA's first pass (`BufferAssigner::AssignSingleHloBuffer`): buffers
    // largest first, results before others of their size; an output or a
    // temporary goes into an allocation it does not interfere with (an
    // operand's, then the others from the smallest), which takes it out of
    // the block of temporaries.
    let mut order: Vec<usize> = (0..npos)
        .filter(|&b| {
            sets.find(b as u32) as usize == b
                && size[b] > 0
                && holds[b] != Holds::Constant
                && first_definition[b] != u32::MAX
        })
        .collect();
    order.sort_by_key(|&b| (-size[b], holds[b] != Holds::Output, start[b], b));
    let mut allocations: Vec<Allocation> = Vec::new();
    let mut allocation_of: Map<usize, usize> = Map::default();
    let mut reusable: Vec<usize> = Vec::new();
    let mut in_allocation = vec![false; npos];
    let mut tuple_tables: Vec<(usize, i64, i64)> = Vec::new();
    for &b in &order {
        let output = holds[b] == Holds::Output;
        match holds[b] {
            Holds::Parameter => {
                // Readonly unless an output reuses it.
                let aliased = aliased_positions
                    .iter()
                    .any(|&q| sets.find(q as u32) as usize == b);
                allocation_of.insert(b, allocations.len());
                if aliased {
                    reusable.push(allocations.len());
                }
                allocations.push(Allocation::new(size[b], space[b], b, &ranges));
                continue;
            }
            Holds::Constant => continue,
            Holds::Output | Holds::Temporary => {}
        }
        let (i, k) = p.owner(first_definition[b]);
        let tuple = shape_of(graph.instruction(i))
            .and_then(|s| {
                let mut all = Vec::new();
                pre_order(s, &mut all);
                all.get(k).map(|s| s.is_tuple())
            })
            .unwrap_or(false);
        if tuple && !output {
            // A tuple's index table has an allocation of its own, which no
            // other buffer reuses.
            tuple_tables.push((b, size[b], space[b]));
            in_allocation[b] = true;
            continue;
        }
        // The allocations of the operands of the instruction that defines
        // the buffer, when that is a whole array.
        let mut candidates: Vec<usize> = Vec::new();
        if k == 0 && shape_of(graph.instruction(i)).is_some_and(|s| !s.is_tuple()) {
            for &o in graph.operands(i) {
                let q = p.start[o as usize];
                if q < p.start[o as usize + 1]
                    && let Some(&a) = allocation_of.get(&(sets.find(q) as usize))
                    && reusable.contains(&a)
                {
                    candidates.push(a);
                }
            }
        }
        candidates.extend(reusable.iter().rev());
        let fits = candidates.into_iter().find(|&a| {
            let allocation = &allocations[a];
            allocation.space == space[b]
                && size[b] <= allocation.size
                && (!output || allocation.size == size[b])
                && allocation
                    .meeting(start[b], last[b])
                    .all(|m| !interferes(&graph, &users, &p, &ranges, b, m))
        });
        match fits {
            Some(a) => {
                allocations[a].insert(b, &ranges);
                allocation_of.insert(b, a);
                in_allocation[b] = true;
            }
            None if output => {
                allocation_of.insert(b, allocations.len());
                reusable.push(allocations.len());
                allocations.push(Allocation::new(size[b], space[b], b, &ranges));
            }
            None => {}
        }
    }

    // Step 3: instructions that take over a dying operand's buffer.
    let mut groups = Sets::new(npos);
    let mut group_end = last.clone();
    let mut taken = vec![false; npos];
    for &i in &flat.order {
        let t = flat.time[i as usize].unwrap_or(0);
        let Some(shape) = shape_of(graph.instruction(i)) else {
            continue;
        };
        let mut subshapes = Vec::new();
        pre_order(shape, &mut subshapes);
        for (k, pos) in p.of(i).enumerate() {
            if !p.defines[pos as usize] {
                continue;
            }
            let b = sets.find(pos) as usize;
            if holds[b] != Holds::Temporary || in_allocation[b] || values[b] != 1 || size[b] == 0 {
                continue;
            }
            for &o in graph.operands(i) {
                let q = p.start[o as usize];
                if q >= p.start[o as usize + 1] || !p.defines[q as usize] {
                    continue;
                }
                let bq = sets.find(q) as usize;
                if bq == b
                    || taken[bq]
                    || holds[bq] != Holds::Temporary
                    || in_allocation[bq]
                    || values[bq] != 1
                    || last[bq] != t
                    || group_end[groups.find(bq as u32) as usize] != t
                {
                    continue;
                }
                let Some(user_shape) = subshapes.get(k) else {
                    continue;
                };
                if can_share(&graph, &users, o, i, user_shape) {
                    taken[bq] = true;
                    let g = groups.find(bq as u32) as usize;
                    let e = group_end[g].max(last[b]);
                    groups.union(g as u32, b as u32);
                    let g = groups.find(g as u32) as usize;
                    group_end[g] = e;
                    break;
                }
            }
        }
    }

    // Step 4: the temporaries' groups, packed per memory space.
    let mut group_index: Map<u32, usize> = Map::default();
    let mut intervals: Vec<Interval> = Vec::new();
    let mut interval_space: Vec<i64> = Vec::new();
    for b in 0..npos {
        if sets.find(b as u32) as usize != b
            || holds[b] != Holds::Temporary
            || in_allocation[b]
            || size[b] == 0
        {
            continue;
        }
        let g = groups.find(b as u32);
        let k = *group_index.entry(g).or_insert_with(|| {
            intervals.push(Interval {
                start: u32::MAX,
                end: 0,
                size: 0,
            });
            interval_space.push(space[b]);
            intervals.len() - 1
        });
        let it = &mut intervals[k];
        it.start = it.start.min(start[b]);
        it.end = it.end.max(last[b]).max(group_end[g as usize]);
        it.size = it.size.max(size[b]);
    }
    let mut spaces: Vec<i64> = interval_space.clone();
    spaces.extend(tuple_tables.iter().map(|t| t.2));
    spaces.sort_unstable();
    spaces.dedup();
    let (mut device, mut host) = (HostBytes::default(), HostBytes::default());
    let mut kinds: Vec<(AllocationKind, i64, i64)> = Vec::new();
    for &s in &spaces {
        let chosen: Vec<Interval> = intervals
            .iter()
            .zip(&interval_space)
            .filter(|(_, sp)| **sp == s)
            .map(|(it, _)| *it)
            .collect();
        let (heap, _) = pack(&chosen, options.alignment);
        // XLA places the temporary allocations of a memory space end to end,
        // each at an aligned offset (`CombineTempAllocations`): the heap and
        // every index table of a temporary tuple.
        let mut parts: Vec<i64> = vec![heap];
        parts.extend(tuple_tables.iter().filter(|t| t.2 == s).map(|t| t.1));
        let combined = combine(&parts, options.alignment);
        let side = if s == HOST_MEMORY_SPACE {
            &mut host
        } else {
            &mut device
        };
        side.temporaries = add(side.temporaries, combined)?;
        kinds.push((AllocationKind::Temporary, s, combined));
    }

    // Arguments and outputs as XLA counts them: every subshape of every
    // entry parameter and of the result is an allocation.
    for param in entry_parameters.iter().flatten() {
        for pos in p.of(*param) {
            let (bytes, s) = (p.size[pos as usize], p.space[pos as usize]);
            let side = if s == HOST_MEMORY_SPACE {
                &mut host
            } else {
                &mut device
            };
            side.arguments = add(side.arguments, bytes)?;
            if aliased_positions.contains(&(pos as usize)) {
                side.aliased = add(side.aliased, bytes)?;
            }
            kinds.push((AllocationKind::Parameter, s, bytes));
        }
    }
    if let Some(r) = root {
        for pos in p.of(r) {
            let (bytes, s) = (p.size[pos as usize], p.space[pos as usize]);
            let side = if s == HOST_MEMORY_SPACE {
                &mut host
            } else {
                &mut device
            };
            side.outputs = add(side.outputs, bytes)?;
            kinds.push((AllocationKind::Output, s, bytes));
        }
    }
    for &i in &flat.order {
        if graph.instruction(i).opcode == "constant" {
            for pos in p.of(i) {
                kinds.push((
                    AllocationKind::Constant,
                    p.space[pos as usize],
                    p.size[pos as usize],
                ));
            }
        }
    }

    // The live bytes over the flattened program, and who is live at the
    // peak.
    let base = device
        .arguments
        .saturating_add(device.outputs)
        .saturating_sub(device.aliased);
    let steps = end as usize;
    let mut delta = vec![0i64; steps + 2];
    for (it, s) in intervals.iter().zip(&interval_space) {
        if *s == HOST_MEMORY_SPACE || it.start > it.end {
            continue;
        }
        delta[it.start as usize] = delta[it.start as usize].saturating_add(it.size);
        delta[it.end as usize + 1] = delta[it.end as usize + 1].saturating_sub(it.size);
    }
    let mut live = 0i64;
    let mut timeline: Vec<(u32, i64)> = Vec::with_capacity(steps);
    let (mut peak_time, mut peak_live) = (0usize, i64::MIN);
    for (t, d) in delta.iter().enumerate().take(steps) {
        live = live.saturating_add(*d);
        if live > peak_live {
            (peak_time, peak_live) = (t, live);
        }
        timeline.push((flat.order[t], base.saturating_add(live)));
    }
    let timeline = sample(timeline)
        .into_iter()
        .map(|(i, live)| Step {
            instruction: graph.instruction(i).name.clone(),
            live,
        })
        .collect();

    let mut peak_buffers = Vec::new();
    let describe = |pos: u32, bytes: i64, kind: AllocationKind| -> PeakBuffer {
        let (i, k) = p.owner(pos);
        let instruction = graph.instruction(i);
        let (mut index, mut shape) = (Vec::new(), String::new());
        match &instruction.shape {
            Ok(s) => {
                let mut n = 0;
                for_each_subshape(s, |sub, at| {
                    if n == k {
                        index = at.as_slice().to_vec();
                        shape = sub.to_string();
                    }
                    n += 1;
                });
            }
            Err(rejected) => shape = rejected.written.clone(),
        }
        PeakBuffer {
            instruction: instruction.name.clone(),
            computation: graph.computation(i).name.clone(),
            shape_index: index,
            shape,
            bytes,
            kind,
        }
    };
    for param in entry_parameters.iter().flatten() {
        for pos in p.of(*param) {
            if p.size[pos as usize] > 0 && p.space[pos as usize] != HOST_MEMORY_SPACE {
                peak_buffers.push(describe(
                    pos,
                    p.size[pos as usize],
                    AllocationKind::Parameter,
                ));
            }
        }
    }
    if let Some(r) = root {
        for pos in p.of(r) {
            if p.size[pos as usize] > 0 && p.space[pos as usize] != HOST_MEMORY_SPACE {
                // The position that defines what the result holds there.
                let b = sets.find(pos);
                let defining = match first_definition[b as usize] {
                    u32::MAX => pos,
                    q => q,
                };
                if holds[b as usize] != Holds::Parameter {
                    peak_buffers.push(describe(
                        defining,
                        p.size[pos as usize],
                        AllocationKind::Output,
                    ));
                }
            }
        }
    }
    // Temporaries live at the peak: per group, its member defined last
    // before it.
    let t = peak_time as u32;
    let mut occupant: Map<u32, (u32, u32)> = Map::default();
    for pos in 0..npos as u32 {
        if !p.defines[pos as usize] {
            continue;
        }
        let b = sets.find(pos) as usize;
        if holds[b] != Holds::Temporary
            || in_allocation[b]
            || size[b] == 0
            || space[b] == HOST_MEMORY_SPACE
            || start[b] > t
        {
            continue;
        }
        let g = groups.find(b as u32);
        let group_last = last[b].max(group_end[g as usize]);
        if group_last < t {
            continue;
        }
        let e = occupant.entry(g).or_insert((pos, start[b]));
        if start[b] > e.1 {
            *e = (pos, start[b]);
        }
    }
    for (g, (pos, _)) in occupant {
        let k = group_index.get(&g).copied();
        let bytes = k.map_or(0, |k| intervals[k].size);
        if let Some(k) = k
            && intervals[k].start <= t
            && t <= intervals[k].end
        {
            peak_buffers.push(describe(pos, bytes, AllocationKind::Temporary));
        }
    }
    peak_buffers.sort_by(|a, b| {
        b.bytes
            .cmp(&a.bytes)
            .then_with(|| a.instruction.cmp(&b.instruction))
    });

    Ok(MemoryAnalysis {
        module: module.name.clone(),
        source: Source::Estimate,
        arguments: device.arguments,
        outputs: device.outputs,
        aliased: device.aliased,
        temporaries: device.temporaries,
        host,
        allocations_total: None,
        by_kind: by_kind(kinds.into_iter())?,
        peak_buffers,
        timeline,
        temporaries_counted: true,
        devices: Vec::new(),
    })
}
