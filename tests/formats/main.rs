//! Proto3 JSON and text format: Google's renderings of every golden
//! message, the model types in every format, the parsers against
//! `json_format.Parse` / `text_format.Parse`, and the oracle's answers.

#[path = "../common/mod.rs"]
mod common;

mod golden;
mod model_types;
mod oracle;
mod parse;
