//! Sharding (`xla_shape::sharding`): XLA's text, `OpSharding` bytes,
//! validation, per-device shapes and slices, and Shardy, each against the
//! answers of jaxlib 0.10.2 in `tests/data/oracle/sharding_*.jsonl`.

#[path = "../common/mod.rs"]
mod common;

mod construct;
mod device;
mod mhlo;
mod modules;
mod oracle;
mod proto;
mod shardy;
mod text;
