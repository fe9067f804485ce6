//! XLA's `LayoutUtil`: making, validating, comparing and querying layouts.
