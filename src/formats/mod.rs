//! Proto formats: binary, canonical proto3 JSON, text format, lossless
//! round trips.
