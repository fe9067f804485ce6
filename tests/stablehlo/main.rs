//! The StableHLO reader against jax and XLA (jaxlib 0.10.2): the programs,
//! modules and types of `tests/data/stablehlo/` (written by
//! `tests/data/oracle/stablehlo_gen.py`), and the reader's own edges.

#[path = "../common/mod.rs"]
mod common;

mod bytecode;
mod modules;
mod programs;
mod reader;
mod shardings;
mod types;
