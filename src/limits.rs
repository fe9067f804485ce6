//! The one recursion limit of every decoder and parser of the crate, at
//! the bottom of the crate so that every layer can use it.

/// The deepest nesting accepted, counted in messages below the root (a
/// tuple element or buffer is one level, a layout one, its tiles, split
/// configs and physical shape one more): protobuf's default recursion
/// limit (`io::CodedInputStream::default_recursion_limit_` in C++, the same
/// in upb and the Python runtime). Every decoder and parser of the crate
/// counts against this one constant: the wire decoders, the conversion of
/// a `ShapeProto` built in memory, the HLO text parser (so that every
/// shape it accepts has a `ShapeProto` that decodes) and the JSON and text
/// formats.
pub const MAX_NESTING_DEPTH: usize = 100;
