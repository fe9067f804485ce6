//! A module's instructions with their references resolved: operands and
//! called computations as indices, each computation's order (its schedule
//! when the module has one), and the program flattened as XLA's
//! `HloLiveRange::FlattenSchedule` flattens it (`xla/hlo/utils/hlo_live_range.cc`).

use super::Map;
use crate::error::{Error, ErrorKind, Result};
use crate::hlo::{HloComputation, HloInstruction, HloModule};
use crate::limits::MAX_NESTING_DEPTH;

/// The instructions of a module, numbered across computations: instruction
/// `j` of computation `c` is `first[c] + j`.
pub(super) struct Graph<'m> {
    pub(super) module: &'m HloModule,
    /// The index of each computation's first instruction.
    pub(super) first: Vec<usize>,
    /// Each instruction's computation.
    pub(super) computation_of: Vec<u32>,
    /// Operands of instruction `i`: `operands[operand_start[i]..operand_start[i + 1]]`.
    operand_start: Vec<u32>,
    operands: Vec<u32>,
    /// Called computations, likewise.
    callee_start: Vec<u32>,
    callees: Vec<u32>,
    /// Each computation's instructions in the order they run.
    pub(super) order: Vec<Vec<u32>>,
    /// Each computation's root instruction.
    pub(super) root: Vec<Option<u32>>,
    /// Each computation's parameters by number.
    pub(super) parameters: Vec<Vec<Option<u32>>>,
    pub(super) entry: usize,
}

/// A reference that does not resolve: an error at the instruction.
fn unresolved(c: &HloComputation, i: &HloInstruction, what: &str) -> Error {
    let message = format!(
        "instruction {} of computation {} refers to {what}, which the module does not hold",
        i.name, c.name
    );
    match i.location {
        Some(at) => Error::new(ErrorKind::Parse, message).at(at),
        None => Error::new(ErrorKind::MalformedProto, message),
    }
}

impl<'m> Graph<'m> {
    /// Resolves `module`'s references.
    ///
    /// # Errors
    ///
    /// A module without an entry computation, an operand or a called
    /// computation that the module does not hold, or a schedule that names
    /// an instruction its computation does not hold.
    pub(super) fn new(module: &'m HloModule) -> Result<Self> {
        let entry = module
            .entry
            .filter(|&e| e < module.computations.len())
            .ok_or_else(|| {
                Error::new(
                    ErrorKind::InvalidArgument,
                    "the module has no entry computation",
                )
            })?;
        let total: usize = module
            .computations
            .iter()
            .map(|c| c.instructions.len())
            .sum();
        if total >= u32::MAX as usize {
            return Err(Error::new(
                ErrorKind::InvalidArgument,
                "the module has more instructions than memory analysis counts (2^32)",
            ));
        }
        let mut first = Vec::with_capacity(module.computations.len());
        let mut computation_of = Vec::with_capacity(total);
        let mut n = 0;
        for (ci, c) in module.computations.iter().enumerate() {
            first.push(n);
            n += c.instructions.len();
            computation_of.extend(std::iter::repeat_n(ci as u32, c.instructions.len()));
        }
        // Computations by id (binary) and by name (text).
        let by_id: Map<i64, u32> = module
            .computations
            .iter()
            .enumerate()
            .filter_map(|(ci, c)| Some((c.id?, ci as u32)))
            .collect();
        let by_name: Map<&str, u32> = module
            .computations
            .iter()
            .enumerate()
            .map(|(ci, c)| (c.name.as_str(), ci as u32))
            .collect();
        let mut graph = Graph {
            module,
            first,
            computation_of,
            operand_start: Vec::with_capacity(total + 1),
            operands: Vec::new(),
            callee_start: Vec::with_capacity(total + 1),
            callees: Vec::new(),
            order: Vec::with_capacity(module.computations.len()),
            root: Vec::with_capacity(module.computations.len()),
            parameters: Vec::with_capacity(module.computations.len()),
            entry,
        };
        for (ci, c) in module.computations.iter().enumerate() {
            let base = graph.first[ci];
            // Instructions of this computation by id and by name.
            let ids: Map<i64, u32> = c
                .instructions
                .iter()
                .enumerate()
                .filter_map(|(j, i)| Some((i.id?, (base + j) as u32)))
                .collect();
            let names: Map<&str, u32> = c
                .instructions
                .iter()
                .enumerate()
                .map(|(j, i)| (i.name.as_str(), (base + j) as u32))
                .collect();
            let mut parameters = Vec::new();
            for (j, i) in c.instructions.iter().enumerate() {
                graph.operand_start.push(graph.operands.len() as u32);
                graph.callee_start.push(graph.callees.len() as u32);
                if i.id.is_some() {
                    for id in &i.operand_ids {
                        let o = ids
                            .get(id)
                            .ok_or_else(|| unresolved(c, i, &format!("operand id {id}")))?;
                        graph.operands.push(*o);
                    }
                    for id in &i.called_computation_ids {
                        let callee = by_id
                            .get(id)
                            .ok_or_else(|| unresolved(c, i, &format!("computation id {id}")))?;
                        graph.callees.push(*callee);
                    }
                } else {
                    for name in i.operand_names() {
                        let o = names
                            .get(name)
                            .ok_or_else(|| unresolved(c, i, &format!("operand {name}")))?;
                        graph.operands.push(*o);
                    }
                    for name in &i.called_computations {
                        let callee = by_name
                            .get(name.as_str())
                            .ok_or_else(|| unresolved(c, i, &format!("computation {name}")))?;
                        graph.callees.push(*callee);
                    }
                }
                if let Some(p) = i.parameter_number.and_then(|p| usize::try_from(p).ok()) {
                    // Parameter numbers index a vector: keep them to the
                    // computation's size (XLA's verifier requires 0..n).
                    if p < c.instructions.len() {
                        if parameters.len() <= p {
                            parameters.resize(p + 1, None);
                        }
                        parameters[p] = Some((base + j) as u32);
                    }
                }
            }
            graph.order.push(graph.schedule_of(ci, c, &ids)?);
            graph.root.push(
                c.root
                    .filter(|&r| r < c.instructions.len())
                    .map(|r| (base + r) as u32),
            );
            graph.parameters.push(parameters);
        }
        graph.operand_start.push(graph.operands.len() as u32);
        graph.callee_start.push(graph.callees.len() as u32);
        Ok(graph)
    }

    /// The order of computation `ci`'s instructions: its schedule sequence
    /// in a binary module that has one, else the module's order (XLA's text
    /// of a scheduled module is in schedule order; an unscheduled one lists
    /// instructions in a post order, which is a valid order too).
    fn schedule_of(&self, ci: usize, c: &HloComputation, ids: &Map<i64, u32>) -> Result<Vec<u32>> {
        let base = self.first[ci] as u32;
        let sequence =
            c.id.and_then(|id| self.module.schedule.iter().find(|s| s.computation_id == id));
        match sequence {
            Some(s) => s
                .instruction_ids
                .iter()
                .map(|id| {
                    ids.get(id).copied().ok_or_else(|| {
                        Error::new(
                            ErrorKind::MalformedProto,
                            format!(
                                "the schedule of computation {} names instruction id {id}, which it does not hold",
                                c.name
                            ),
                        )
                    })
                })
                .collect(),
            None => Ok((0..c.instructions.len() as u32).map(|j| base + j).collect()),
        }
    }

    /// The instruction numbered `i`.
    pub(super) fn instruction(&self, i: u32) -> &'m HloInstruction {
        let c = self.computation_of[i as usize] as usize;
        &self.module.computations[c].instructions[i as usize - self.first[c]]
    }

    /// Its computation.
    pub(super) fn computation(&self, i: u32) -> &'m HloComputation {
        &self.module.computations[self.computation_of[i as usize] as usize]
    }

    pub(super) fn operands(&self, i: u32) -> &[u32] {
        let i = i as usize;
        &self.operands[self.operand_start[i] as usize..self.operand_start[i + 1] as usize]
    }

    pub(super) fn callees(&self, i: u32) -> &[u32] {
        let i = i as usize;
        &self.callees[self.callee_start[i] as usize..self.callee_start[i + 1] as usize]
    }

    pub(super) fn len(&self) -> usize {
        self.computation_of.len()
    }

    /// The program flattened as XLA's `HloLiveRange` flattens a module's
    /// schedule: the entry computation's sequence, where each instruction
    /// that calls computations in sequence (while: condition then body;
    /// conditional, call, async-start: each callee) comes after the
    /// flattened sequences of its callees. A computation called from two
    /// places is flattened once, at the first. Returns each flattened
    /// instruction's time (`None` for instructions that do not run in
    /// sequence: fused computations, reducers) and the flattened order.
    pub(super) fn flatten(&self) -> Result<Flat> {
        let mut flat = Flat {
            time: vec![None; self.len()],
            order: Vec::new(),
            span: vec![None; self.module.computations.len()],
        };
        self.flatten_computation(self.entry, &mut flat, 0)?;
        Ok(flat)
    }

    fn flatten_computation(&self, c: usize, flat: &mut Flat, depth: usize) -> Result<()> {
        if flat.span[c].is_some() {
            return Ok(());
        }
        if depth > MAX_NESTING_DEPTH {
            return Err(too_deep_calls());
        }
        let start = flat.order.len();
        // Marks the computation as being flattened: a call back into it (a
        // cycle, which XLA's verifier rejects) is not followed.
        flat.span[c] = Some((start, start));
        for &i in &self.order[c] {
            if let Some(kind) = sequential_call(&self.instruction(i).opcode) {
                let callees = self.callees(i);
                match kind {
                    // XLA: condition, then body; the view keeps XLA's order
                    // of called computations, body first.
                    SequentialCall::While => {
                        for &callee in callees.iter().rev() {
                            self.flatten_computation(callee as usize, flat, depth + 1)?;
                        }
                    }
                    SequentialCall::Other => {
                        for &callee in callees {
                            self.flatten_computation(callee as usize, flat, depth + 1)?;
                        }
                    }
                }
            }
            flat.time[i as usize] = Some(flat.order.len() as u32);
            flat.order.push(i);
        }
        flat.span[c] = Some((start, flat.order.len()));
        Ok(())
    }
}

/// The flattened program.
pub(super) struct Flat {
    /// Each instruction's time, if it runs in sequence.
    pub(super) time: Vec<Option<u32>>,
    /// The instructions in the order they run.
    pub(super) order: Vec<u32>,
    /// Each computation's times `[start, end)`, if it runs in sequence.
    pub(super) span: Vec<Option<(usize, usize)>>,
}

/// How an instruction calls computations that run in sequence with it.
pub(super) enum SequentialCall {
    While,
    Other,
}

/// Whether `opcode` calls its computations in sequence (XLA's
/// `CallContext::kControlFlow`): their buffers are the module's, not a
/// thread's.
pub(super) fn sequential_call(opcode: &str) -> Option<SequentialCall> {
    match opcode {
        "while" => Some(SequentialCall::While),
        "conditional" | "call" | "async-start" => Some(SequentialCall::Other),
        _ => None,
    }
}

fn too_deep_calls() -> Error {
    Error::new(
        ErrorKind::InvalidArgument,
        format!("computations call each other more than {MAX_NESTING_DEPTH} levels deep"),
    )
}
