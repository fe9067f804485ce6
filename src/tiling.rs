//! The full tiled-layout model (XLA's tiled_layout document, made precise):
//! physical shapes, element offsets and sizes with every tile applied.
