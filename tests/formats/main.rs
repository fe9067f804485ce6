//! Proto3 JSON and text format: Google's renderings of every golden
//! message, the model types in every format, the parsers against
//! `json_format.Parse` / `text_format.Parse`, the oracle's answers, and
//! the compact serde form (XLA's printed form).

#[path = "../common/mod.rs"]
mod common;

mod compact_serde;
mod golden;
mod model_types;
mod oracle;
mod parse;
