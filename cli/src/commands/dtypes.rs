//! `dtypes`: the names other systems give each XLA element type, and the
//! same names for `describe`.

use std::io::Write;

use serde_json::{Value as Json, json};
use xla_shape::PrimitiveType;
use xla_shape::interop::{ElementType, System};

use crate::Context;
use crate::output::Failure;

/// `NumPy bfloat16, DLPack kDLBfloat bits=16 lanes=1, ...`, or `None`
/// when no system names `t`.
pub fn known_as(t: PrimitiveType) -> Option<String> {
    let parts: Vec<String> = System::ALL
        .iter()
        .filter_map(|s| Some(format!("{} {}", s.name(), s.element_type(t)?)))
        .collect();
    (!parts.is_empty()).then(|| parts.join(", "))
}

/// An element type of another system as JSON: a name, a number, or
/// DLPack's `{code, bits, lanes}`.
fn element_type_json(e: ElementType) -> Json {
    match e {
        ElementType::Numpy(d) => json!(d.name),
        ElementType::Dlpack(d) => json!({"code": d.code, "bits": d.bits, "lanes": d.lanes}),
        ElementType::Pjrt(n) | ElementType::Tensorflow(n) => json!(n),
        ElementType::Safetensors(name) => json!(name),
        _ => json!(e.to_string()),
    }
}

/// The names of `t` as a JSON object, one key per system (`null` where a
/// system has none).
pub fn names_json(t: PrimitiveType) -> Json {
    let names: serde_json::Map<String, Json> = System::ALL
        .iter()
        .map(|s| {
            let name = s.element_type(t).map_or(Json::Null, element_type_json);
            (s.as_str().to_owned(), name)
        })
        .collect();
    Json::Object(names)
}

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
