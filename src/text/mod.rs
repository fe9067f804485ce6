//! HLO text syntax for shapes and layouts: printing (XLA's `HumanString`
//! family, behind the `Display` impls of the model types).

pub(crate) mod printer;
