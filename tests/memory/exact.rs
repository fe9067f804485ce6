//! The exact analysis: XLA's buffer assignment read from the `HloProto`
//! XLA dumped, against `compiled.memory_analysis()` and XLA's own text
//! dumps of the same assignment.

use std::collections::{BTreeMap, BTreeSet};

use prost::Message;
use xla_shape::hlo::HloModule;
use xla_shape::memory::{self, AllocationKind, Source};
use xla_shape::proto::HloProto;

use crate::programs;

#[test]
fn arguments_outputs_aliased_temporaries_equal_memory_analysis() {
    for p in programs() {
        let m = memory::analyze(&p.module("hlo.pb")).unwrap();
        assert_eq!(m.source, Source::BufferAssignment);
        let ours = (m.arguments, m.outputs, m.aliased, m.temporaries);
        let xla = (
            p.xla("argument_size_in_bytes"),
            p.xla("output_size_in_bytes"),
            p.xla("alias_size_in_bytes"),
            p.xla("temp_size_in_bytes"),
        );
        assert_eq!(ours, xla, "{}", p.name);
        let host = (
            m.host.arguments,
            m.host.outputs,
            m.host.aliased,
            m.host.temporaries,
        );
        let xla_host = (
            p.xla("host_argument_size_in_bytes"),
            p.xla("host_output_size_in_bytes"),
            p.xla("host_alias_size_in_bytes"),
            p.xla("host_temp_size_in_bytes"),
        );
        assert_eq!(host, xla_host, "{}", p.name);
        assert_eq!(m.peak(), p.xla_peak(), "{}", p.name);
    }
}

/// `allocations_total` is the "Total bytes" of XLA's
/// `*-memory-usage-report.txt`.
#[test]
fn allocations_total_equals_the_memory_usage_reports_total_bytes() {
    for p in programs() {
        let m = memory::exact(&p.module("hlo.pb")).unwrap();
        let totals: i64 = p.record["memory_usage_report"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["total_bytes"].as_i64().unwrap())
            .sum();
        assert_eq!(m.allocations_total, Some(totals), "{}", p.name);
        // The report's text says the same.
        let text = String::from_utf8(p.file("memory-usage-report.txt")).unwrap();
        assert!(
            text.contains(&format!("Total bytes: {totals} ")),
            "{}",
            p.name
        );
    }
}

/// The allocations by kind equal XLA's `*-buffer-assignment.txt`: one line
/// per allocation, `allocation N: size S, <what it holds>`.
#[test]
fn allocations_by_kind_equal_xlas_buffer_assignment_dump() {
    let mut kinds_seen = BTreeSet::new();
    for p in programs() {
        let text = String::from_utf8(p.file("buffer-assignment.txt")).unwrap();
        let mut xla: BTreeMap<AllocationKind, (usize, i64)> = BTreeMap::new();
        for line in text.lines().filter(|l| l.starts_with("allocation ")) {
            let (_, rest) = line.split_once(": size ").unwrap();
            let (size, what) = rest.split_once(',').unwrap();
            // XLA's BufferAllocation::ToString: the first that applies.
            let kind = if what.contains(" parameter ") {
                AllocationKind::Parameter
            } else if what.contains("maybe-live-out") {
                AllocationKind::Output
            } else if what.contains("thread-local") {
                AllocationKind::ThreadLocal
            } else if what.contains("constant") {
                AllocationKind::Constant
            } else {
                assert!(what.contains("preallocated-temp"), "{line}");
                AllocationKind::Temporary
            };
            let e = xla.entry(kind).or_default();
            e.0 += 1;
            e.1 += size.trim().parse::<i64>().unwrap();
        }
        let m = memory::exact(&p.module("hlo.pb")).unwrap();
        let ours: BTreeMap<AllocationKind, (usize, i64)> = m
            .by_kind
            .iter()
            .map(|t| {
                assert_eq!(t.memory_space, 0);
                (t.kind, (t.count, t.bytes))
            })
            .collect();
        assert_eq!(ours, xla, "{}", p.name);
        kinds_seen.extend(ours.keys().copied());
    }
    assert_eq!(kinds_seen.len(), 5, "{kinds_seen:?}");
}

/// The temporaries live at the peak are the buffers XLA itself lists as
/// the peak of each temporary allocation (`BufferAssignmentProto.peak_buffers`,
/// which `ComputePeakMemoryLogicalBuffers` fills), and the timeline peaks
/// at the arguments, outputs and (at most) those buffers.
#[test]
fn peak_temporaries_are_xlas_peak_buffers() {
    let mut checked = 0;
    for p in programs() {
        let bytes = p.file("hlo.pb");
        let proto = HloProto::decode(bytes.as_slice()).unwrap();
        let module = proto.hlo_module.as_ref().unwrap();
        let assignment = proto.buffer_assignment.as_ref().unwrap();
        let names: BTreeMap<i64, &str> = module
            .computations
            .iter()
            .flat_map(|c| &c.instructions)
            .map(|i| (i.id, i.name.as_str()))
            .collect();
        let temporaries: BTreeSet<i64> = assignment
            .buffer_allocations
            .iter()
            .filter(|a| {
                !a.is_entry_computation_parameter
                    && !a.maybe_live_out
                    && !a.is_thread_local
                    && !a.is_constant
            })
            .map(|a| a.index)
            .collect();
        let mut xla: Vec<(String, Vec<i64>)> = assignment
            .peak_buffers
            .iter()
            .filter(|pb| temporaries.contains(&pb.index))
            .flat_map(|pb| &pb.logical_buffer_ids)
            .map(|id| {
                let b = assignment
                    .logical_buffers
                    .iter()
                    .find(|b| b.id == *id)
                    .unwrap();
                let at = b.defined_at.as_ref().unwrap();
                (names[&at.instruction_id].to_owned(), at.shape_index.clone())
            })
            .collect();
        let m = memory::exact(&HloModule::read(&bytes).unwrap()).unwrap();
        let mut ours: Vec<(String, Vec<i64>)> = m
            .peak_buffers
            .iter()
            .filter(|b| b.kind == AllocationKind::Temporary)
            .map(|b| (b.instruction.clone(), b.shape_index.clone()))
            .collect();
        xla.sort();
        ours.sort();
        assert_eq!(ours, xla, "{}", p.name);
        checked += usize::from(!xla.is_empty());
        let base = m.arguments + m.outputs - m.aliased;
        let at_peak: i64 = m
            .peak_buffers
            .iter()
            .filter(|b| b.kind == AllocationKind::Temporary)
            .map(|b| b.bytes)
            .sum();
        // The timeline follows the heap's trace; the index tables of
        // tuples, which have allocations of their own, are in no trace.
        if let Some(max) = m.timeline.iter().map(|s| s.live).max() {
            assert!(base <= max && max <= base + at_peak, "{}", p.name);
            assert!(max <= m.peak(), "{}", p.name);
        }
    }
    assert!(checked >= 15, "{checked}");
}

/// An `HloSnapshot` around the `HloProto` gives the same analysis.
#[test]
fn a_snapshot_that_holds_the_buffer_assignment_is_analysed_exactly() {
    for p in programs() {
        let Ok(bytes) = std::fs::read(crate::common::data_path(&format!(
            "memory/{}/snapshot_ba.pb",
            p.name
        ))) else {
            continue;
        };
        let snapshot = memory::analyze(&HloModule::read(&bytes).unwrap()).unwrap();
        let proto = memory::analyze(&p.module("hlo.pb")).unwrap();
        assert_eq!(snapshot, proto, "{}", p.name);
    }
}

/// XLA counts an allocation of color 5 (`Layout::kHostMemorySpace`) in the
/// host figures (`CompiledMemoryStats::PopulateBufferStatsFromAllocations`).
/// XLA:CPU colors no allocation so; this one is recolored by hand.
#[test]
fn host_memory_allocations_count_apart() {
    let p = &programs()
        .into_iter()
        .find(|p| p.name == "donate_inplace")
        .unwrap();
    let mut proto = HloProto::decode(p.file("hlo.pb").as_slice()).unwrap();
    let assignment = proto.buffer_assignment.as_mut().unwrap();
    let aliased = assignment
        .buffer_allocations
        .iter_mut()
        .find(|a| a.is_parameter_aliased_with_output)
        .unwrap();
    aliased.color = 5;
    let size = aliased.size;
    let m = memory::exact(&HloModule::read(&proto.encode_to_vec()).unwrap()).unwrap();
    assert_eq!(
        (m.host.arguments, m.host.outputs, m.host.aliased),
        (size, size, size)
    );
    assert_eq!(m.arguments, p.xla("argument_size_in_bytes") - size);
    assert_eq!(m.aliased, 0);
    assert!(
        m.by_kind
            .iter()
            .any(|t| t.memory_space == 5 && t.bytes == size)
    );
}

#[test]
fn a_module_without_a_buffer_assignment_has_no_exact_analysis() {
    let p = &programs()[0];
    let err = memory::exact(&p.module("opt.txt")).unwrap_err();
    assert_eq!(err.kind(), xla_shape::ErrorKind::InvalidArgument);
}
