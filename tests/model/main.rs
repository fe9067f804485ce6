//! The data model and its bytes: the upstream cases of the model types
//! (`shape_test.cc`, `layout_test.cc`), every golden ShapeProto through
//! decode, validation and encode, the wire format as Google's runtimes read
//! it (`ProgramShapeProto` too), bad bytes, the schema against jaxlib's
//! descriptor, the encoders into a caller's buffer, `Hash` against `Eq`,
//! and the accessors against jaxlib's facts.

#[path = "../common/mod.rs"]
mod common;

mod accessors;
mod encode;
mod hash;
mod program_shape_wire;
mod proto_golden;
mod proto_robustness;
mod proto_wire;
mod schema;
mod upstream_cases;
