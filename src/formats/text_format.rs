//! The protobuf text format (`.pbtxt`), printed as Google's
//! `text_format.MessageToString` prints it (`write.rs`) and parsed by
//! prost-reflect (`read.rs`).

mod read;
mod write;

pub use read::{from_text_format, from_text_format_dynamic};
pub use write::{to_text_format, to_text_format_one_line};
