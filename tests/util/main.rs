//! XLA's `ShapeUtil`, `LayoutUtil`, `IndexUtil` and `primitive_util`: the
//! upstream test cases, the facts real XLA reported for the golden shapes,
//! property tests, and the agreement of `docs/xla-mapping.md` with the
//! crate's doc aliases.

#[path = "../common/mod.rs"]
mod common;

mod golden;
mod index;
mod layout;
mod primitive;
mod props;
mod shape;
mod xla_mapping;
