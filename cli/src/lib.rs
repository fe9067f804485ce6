//! The commands of the `xla-shape` tool, as a library: the binary
//! (`main.rs`) parses the arguments and calls them, and the fuzz targets
//! (`fuzz/cli_checks.rs`) call them in-process to check what they write
//! (valid JSON, one line per input line, well-formed SVG). Not a stable
//! API: the tool's interface is its command line (docs/cli.md).

pub mod convert;
pub mod describe;
pub mod draw;
pub mod draw_sharding;
pub mod dtypes;
pub mod index;
pub mod input;
pub mod memory;
pub mod output;
pub mod report;
pub mod scan;
pub mod sharding;
pub mod signature;
pub mod strides;
pub mod validate;
