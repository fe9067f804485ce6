//! The data model and its bytes: the upstream cases of the model types
//! (`shape_test.cc`, `layout_test.cc`), every golden ShapeProto through
//! decode, validation and encode, the wire format as Google's runtimes read
//! it, bad bytes, and the schema against jaxlib's descriptor.

#[path = "../common/mod.rs"]
mod common;

mod proto_golden;
mod proto_robustness;
mod proto_wire;
mod schema;
mod upstream_cases;
