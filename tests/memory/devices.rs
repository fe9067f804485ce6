//! Per-device argument and output bytes of modules before partitioning,
//! against XLA after partitioning: jax programs with shardings on eight CPU
//! devices (`tests/data/memory_devices/`, written by
//! `tests/data/oracle/memory_devices_gen.py`), each as StableHLO text,
//! bytecode and XLA's HLO conversion, beside `compiled.memory_analysis()`
//! (whose argument and output sizes are one device's).

use xla_shape::hlo::HloModule;
use xla_shape::memory::{self, DeviceBytes, MemoryAnalysis};
use xla_shape::stablehlo::StableHloModule;

use crate::common;

fn path(name: &str) -> String {
    common::data_path(&format!("memory_devices/{name}"))
}

fn check(what: &str, m: &MemoryAnalysis, want: (usize, i64, i64)) {
    let (n, arguments, outputs) = want;
    assert_eq!(m.devices.len(), n, "{what}");
    for (i, d) in m.devices.iter().enumerate() {
        assert_eq!(
            *d,
            DeviceBytes {
                device: i as i64,
                arguments,
                outputs
            },
            "{what}"
        );
    }
    assert_eq!(
        m.device_max().map(|d| (d.arguments, d.outputs)),
        Some((arguments, outputs)),
        "{what}"
    );
}

#[test]
fn per_device_bytes_are_xlas_after_partitioning() {
    let records = common::records("memory_devices/devices.jsonl");
    assert!(records.len() >= 16, "{} programs", records.len());
    let mut bytecode = 0;
    for r in &records {
        let name = r["name"].as_str().unwrap();
        let n = r["num_devices"].as_u64().unwrap() as usize;
        let arguments = r["argument_size_in_bytes"].as_i64().unwrap();
        let outputs = r["output_size_in_bytes"].as_i64().unwrap();
        let want = (n, arguments, outputs);

        let text = std::fs::read_to_string(path(&format!("{name}.mlir"))).unwrap();
        let module = StableHloModule::from_text(&text).unwrap();
        let m = memory::analyze_stablehlo(&module).unwrap();
        check(&format!("{name}.mlir"), &m, want);
        assert!(!m.temporaries_counted);
        if name.ends_with("_replicated") {
            // Replicated, each device holds the whole: the global figures
            // are XLA's too.
            assert_eq!((m.arguments, m.outputs), (arguments, outputs), "{name}");
        }

        if let Ok(bytes) = std::fs::read(path(&format!("{name}.mlirbc"))) {
            let module = StableHloModule::from_bytecode(&bytes).unwrap();
            check(
                &format!("{name}.mlirbc"),
                &memory::analyze_stablehlo(&module).unwrap(),
                want,
            );
            bytecode += 1;
        }

        // XLA's conversion before partitioning. Its sub-byte arrays have no
        // `E(4)` yet (layout assignment adds it when compiling), so an s4
        // value takes a byte per element: twice what XLA compiles.
        let hlo = std::fs::read_to_string(path(&format!("{name}.hlo.txt"))).unwrap();
        let module = HloModule::from_text(&hlo).unwrap();
        let m = memory::analyze(&module).unwrap();
        let want = if name.ends_with("_int4") {
            (n, 2 * arguments, 2 * outputs)
        } else {
            want
        };
        // HLO text does not say how many partitions there are: where no
        // sharding names devices (all replicated), one entry stands for
        // every device.
        let want = if name.ends_with("_replicated") {
            (1, want.1, want.2)
        } else {
            want
        };
        check(&format!("{name}.hlo.txt"), &m, want);
    }
    assert!(bytecode >= 8, "{bytecode} bytecode programs");
}

/// An uneven split, which jax does not write: XLA's partitioner gives
/// every device the tile shape, rounded up (`TileShape`): 10 rows over 4
/// devices are 3 rows each (the last device's padded), f32[3,6] = 72
/// bytes; the tuple result holds a replicated f32[] (4 bytes) and a
/// `{maximal device=1}` f32[2] (8 bytes, whole on every device) beside its
/// 16-byte index table.
#[test]
fn an_uneven_split_is_rounded_up() {
    let module = HloModule::from_text(
        "HloModule m\n\nENTRY main {\n  \
         p = f32[10,6]{1,0} parameter(0), sharding={devices=[4,1]<=[4]}\n  \
         s = f32[] constant(0)\n  \
         c = f32[2]{0} constant({1, 2})\n  \
         ROOT t = (f32[], f32[2]{0}) tuple(s, c), sharding={{replicated}, {maximal device=1}}\n}\n",
    )
    .unwrap();
    let m = memory::analyze(&module).unwrap();
    check("uneven", &m, (4, 72, 16 + 4 + 8));
}

/// A module XLA scheduled is after partitioning: its parameters keep their
/// shardings but their shapes are per device already.
#[test]
fn a_scheduled_module_has_no_devices() {
    let module = HloModule::from_text(
        "HloModule m, is_scheduled=true\n\nENTRY main {\n  \
         ROOT p = f32[16,16]{1,0} parameter(0), sharding={devices=[4,2]<=[8]}\n}\n",
    )
    .unwrap();
    assert!(memory::analyze(&module).unwrap().devices.is_empty());
}

#[test]
fn a_module_without_shardings_has_no_devices() {
    let module =
        HloModule::from_text("HloModule m\n\nENTRY main {\n  ROOT p = f32[4]{0} parameter(0)\n}\n")
            .unwrap();
    let m = memory::analyze(&module).unwrap();
    assert!(m.devices.is_empty());
    assert!(m.device_max().is_none());
}

/// A tuple sharding of another number of leaves than its shape is an
/// error, not a guess.
#[test]
fn a_tuple_sharding_that_does_not_fit_is_an_error() {
    let module = HloModule::from_text(
        "HloModule m\n\nENTRY main {\n  \
         ROOT p = (f32[4]{0}, f32[4]{0}) parameter(0), sharding={{replicated}}\n}\n",
    )
    .unwrap();
    assert!(memory::analyze(&module).is_err());
}
