//! `dtypes`: the names other systems give each XLA element type, and the
//! same names for `describe`.

use std::io::Write;

use serde_json::{Value as Json, json};
use xla_shape::PrimitiveType;
use xla_shape::interop::System;

use crate::Context;
use crate::output::{Failure, names_json};

/// Prints the table: one row per element type of HLO text.
pub fn run(cx: &mut Context<impl Write>) -> Result<(), Failure> {
    let types = PrimitiveType::ALL
        .iter()
        .copied()
        .filter(|t| *t != PrimitiveType::Invalid);
    if cx.json {
        let rows: Vec<Json> = types
            .map(|t| {
                let mut row = names_json(t);
                row["type"] = json!(t.lowercase_name());
                row
            })
            .collect();
        cx.write_json(&json!({ "dtypes": rows }))?;
        return Ok(());
    }
    let row = |t: PrimitiveType| -> Vec<String> {
        std::iter::once(t.lowercase_name().to_string())
            .chain(System::ALL.iter().map(|s| {
                s.element_type(t)
                    .map_or_else(|| "-".to_string(), |e| e.to_string())
            }))
            .collect()
    };
    let header: Vec<String> = std::iter::once("xla")
        .chain(System::ALL.iter().map(|s| s.as_str()))
        .map(String::from)
        .collect();
    let rows: Vec<Vec<String>> = types.map(row).collect();
    let mut widths = vec![0usize; header.len()];
    for row in std::iter::once(&header).chain(&rows) {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.len());
        }
    }
    for row in std::iter::once(&header).chain(&rows) {
        let mut line = String::new();
        for (i, (cell, &w)) in row.iter().zip(&widths).enumerate() {
            if i + 1 == row.len() {
                line.push_str(cell);
            } else {
                line.push_str(&format!("{cell:<w$}  "));
            }
        }
        writeln!(cx.out, "{}", line.trim_end())?;
    }
    Ok(())
}
