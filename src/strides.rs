//! Layouts and strides: dense layout -> strides, strides -> layout (DLPack,
//! NumPy), DirectML-style strided views and their buffer sizes.
