//! Measures `xla_shape::memory` against XLA on a corpus written by
//! `tests/data/oracle/memory_gen.py` (a directory per program and its
//! `memory.jsonl`): the exact analysis of each `hlo.pb` against
//! `compiled.memory_analysis()` and the memory-usage report, and the
//! estimate of the optimized module (`opt.txt`, and `hlo.pb` with its
//! buffer assignment set aside) and of the module before optimization
//! (`lowered.txt`) against XLA's peak (arguments + outputs + temporaries -
//! aliased). Prints a Markdown table per kind of module and a summary.
//!
//! ```text
//! python3 tests/data/oracle/memory_gen.py /tmp/memory-corpus > /tmp/memory-corpus/memory.jsonl
//! cargo run --release --example memory_corpus -- /tmp/memory-corpus
//! ```

use std::path::Path;

use serde_json::Value;
use xla_shape::hlo::HloModule;
use xla_shape::memory::{self, EstimateOptions, MemoryAnalysis};

fn read(path: &Path) -> Option<HloModule> {
    let bytes = std::fs::read(path).ok()?;
    match HloModule::read(&bytes) {
        Ok(m) => Some(m),
        Err(e) => {
            eprintln!("{}: {e}", path.display());
            None
        }
    }
}

fn field(v: &Value, k: &str) -> i64 {
    v[k].as_i64().unwrap_or_else(|| panic!("{k} in {v}"))
}

/// The ratio estimate / XLA, and whether it lies in [0.8, 1.25].
fn ratio(ours: i64, xla: i64) -> (f64, bool) {
    let r = if xla == 0 {
        if ours == 0 { 1.0 } else { f64::INFINITY }
    } else {
        ours as f64 / xla as f64
    };
    (r, (0.8..=1.25).contains(&r))
}

fn main() {
    let dir = std::env::args().nth(1).expect("the corpus directory");
    let dir = Path::new(&dir);
    let lines = std::fs::read_to_string(dir.join("memory.jsonl")).expect("memory.jsonl");
    let mut exact_ok = 0;
    let mut rows = Vec::new();
    let mut count = 0;
    for line in lines.lines() {
        let record: Value = serde_json::from_str(line).unwrap();
        let name = record["name"].as_str().unwrap().to_owned();
        let stats = &record["memory_analysis"];
        let xla = (
            field(stats, "argument_size_in_bytes"),
            field(stats, "output_size_in_bytes"),
            field(stats, "alias_size_in_bytes"),
            field(stats, "temp_size_in_bytes"),
        );
        let xla_peak = xla.0 + xla.1 + xla.3 - xla.2;
        let total: i64 = record["memory_usage_report"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| field(t, "total_bytes"))
            .sum();
        count += 1;
        let d = dir.join(&name);
        let Some(proto) = read(&d.join("hlo.pb")) else {
            continue;
        };
        let exact = memory::exact(&proto).unwrap();
        let ours = (
            exact.arguments,
            exact.outputs,
            exact.aliased,
            exact.temporaries,
        );
        if ours == xla && exact.allocations_total == Some(total) {
            exact_ok += 1;
        } else {
            println!(
                "EXACT MISMATCH {name}: ours {ours:?} total {:?}, XLA {xla:?} total {total}",
                exact.allocations_total
            );
        }
        let estimate = |m: &HloModule| -> Option<MemoryAnalysis> {
            match memory::estimate(m, &EstimateOptions::default()) {
                Ok(a) => Some(a),
                Err(e) => {
                    eprintln!("{name}: {e}");
                    None
                }
            }
        };
        let opt = read(&d.join("opt.txt")).and_then(|m| estimate(&m));
        let pb = estimate(&proto);
        let lowered = read(&d.join("lowered.txt")).and_then(|m| estimate(&m));
        rows.push((name, xla, xla_peak, opt, pb, lowered));
    }
    println!("exact: {exact_ok} of {count} modules equal XLA's figures and Total bytes\n");

    for (title, pick) in [
        (
            "optimized (opt.txt, the scheduled text of the after-optimizations dump)",
            0usize,
        ),
        ("optimized (hlo.pb, its buffer assignment set aside)", 1),
        ("before optimization (lowered.txt)", 2),
    ] {
        println!("### {title}\n");
        println!("| program | XLA temporaries | estimated | XLA peak | estimated peak | ratio |");
        println!("| --- | ---: | ---: | ---: | ---: | ---: |");
        let mut within = 0;
        let mut n = 0;
        let mut ratios = Vec::new();
        for (name, xla, xla_peak, opt, pb, lowered) in &rows {
            let a = match pick {
                0 => opt,
                1 => pb,
                _ => lowered,
            };
            let Some(a) = a else {
                println!("| {name} | {} | (error) | {xla_peak} | | |", xla.3);
                continue;
            };
            let (r, ok) = ratio(a.peak(), *xla_peak);
            n += 1;
            within += usize::from(ok);
            ratios.push(r);
            println!(
                "| {name} | {} | {} | {xla_peak} | {} | {r:.3}{} |",
                xla.3,
                a.temporaries,
                a.peak(),
                if ok { "" } else { " *" }
            );
        }
        ratios.sort_by(f64::total_cmp);
        let median = ratios.get(ratios.len() / 2).copied().unwrap_or(f64::NAN);
        println!(
            "\n{within} of {n} within [0.8, 1.25] ({:.0}%); median ratio {median:.3}, min {:.3}, max {:.3}\n",
            100.0 * within as f64 / n.max(1) as f64,
            ratios.first().copied().unwrap_or(f64::NAN),
            ratios.last().copied().unwrap_or(f64::NAN),
        );
    }
}
