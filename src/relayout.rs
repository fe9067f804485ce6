//! Copying array data between layouts.
