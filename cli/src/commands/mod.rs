//! The commands: one module each, with its arguments (`Args`, a
//! `clap::Args` struct: the command's own flags and their help) and its
//! `run(&Args, &mut Context)`. A command reads through [`crate::input`]
//! (INPUT whole, line by line or as a module; shapes and layouts in every
//! format) and writes through [`crate::output`] (errors, JSON, lists) and
//! the [`Context`](crate::Context); it holds no service another command
//! needs. `main.rs` names each command once, in its `Command` enum.

pub mod convert;
pub mod describe;
pub mod draw;
pub mod dtypes;
pub mod index;
pub mod memory;
pub mod padding;
pub mod ranges;
pub mod report;
pub mod scan;
pub mod sharding;
pub mod signature;
pub mod strides;
pub mod validate;
