//! Canonical proto3 JSON, as Google's runtime writes and reads it
//! (`json_format.MessageToJson` / `json_format.Parse`): writing in
//! `write.rs`, reading in `read.rs`, and the edits the reader makes to the
//! input before prost-reflect reads it in `edits.rs`.

mod edits;
mod read;
mod write;

pub use read::{from_json, from_json_dynamic};
pub(crate) use write::JsonView;
pub use write::{JsonOptions, to_json, to_json_with};
