//! `xla_shape::memory` against XLA: the programs of `tests/data/memory/`,
//! compiled by jax on the CPU (jaxlib 0.10.2, written by
//! `tests/data/oracle/memory_gen.py`), with `compiled.memory_analysis()`
//! and XLA's own dumps of its buffer assignment.

#[path = "../common/mod.rs"]
mod common;

mod devices;
mod estimate;
mod exact;
mod padding;

use serde_json::Value;
use xla_shape::hlo::HloModule;

/// A program of the corpus, and XLA's record of it.
pub struct Program {
    pub name: String,
    pub record: Value,
}

impl Program {
    pub fn file(&self, file: &str) -> Vec<u8> {
        std::fs::read(common::data_path(&format!("memory/{}/{file}", self.name)))
            .unwrap_or_else(|e| panic!("{}/{file}: {e}", self.name))
    }

    pub fn module(&self, file: &str) -> HloModule {
        HloModule::read(&self.file(file)).unwrap_or_else(|e| panic!("{}/{file}: {e}", self.name))
    }

    /// A field of `compiled.memory_analysis()`.
    pub fn xla(&self, field: &str) -> i64 {
        self.record["memory_analysis"][field].as_i64().unwrap()
    }

    /// XLA's peak: arguments + outputs + temporaries - aliased.
    pub fn xla_peak(&self) -> i64 {
        self.xla("argument_size_in_bytes")
            + self.xla("output_size_in_bytes")
            + self.xla("temp_size_in_bytes")
            - self.xla("alias_size_in_bytes")
    }
}

/// Every program with its record (`memory.jsonl`).
pub fn programs() -> Vec<Program> {
    let programs: Vec<Program> = common::records("memory/memory.jsonl")
        .into_iter()
        .map(|record| Program {
            name: record["name"].as_str().unwrap().to_owned(),
            record,
        })
        .collect();
    assert_eq!(programs.len(), 36);
    programs
}
