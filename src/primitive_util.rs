//! XLA's `primitive_util`, as free functions over [`PrimitiveType`](crate::PrimitiveType).
