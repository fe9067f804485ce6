//! `dtypes`: the names other systems give each XLA element type, and the
//! same names for `describe`.

use std::io::Write;

use serde_json::{Value as Json, json};
use xla_shape::PrimitiveType;
use xla_shape::interop::{dlpack, numpy, pjrt, safetensors, tensorflow};

use crate::Context;
use crate::output::Failure;

/// The names of `t` in NumPy, DLPack, PJRT, safetensors and TensorFlow,
/// each `None` where that system has none.
struct Names {
    numpy: Option<&'static str>,
    dlpack: Option<dlpack::DLDataType>,
    pjrt: Option<i32>,
    safetensors: Option<&'static str>,
    tensorflow: Option<i32>,
}

fn names(t: PrimitiveType) -> Names {
    Names {
        // A tuple's `object` dtype is jaxlib's, but no element type.
        numpy: numpy::dtype_name(t).filter(|_| t.is_array_type()),
        dlpack: dlpack::to_dl_data_type(t).ok(),
        pjrt: pjrt::to_buffer_type(t)
            .ok()
            .filter(|&n| n != pjrt::PJRT_BUFFER_TYPE_INVALID),
        safetensors: safetensors::dtype_name(t),
        tensorflow: tensorflow::to_data_type(t).ok(),
    }
}

fn pjrt_text(n: i32) -> String {
    format!("{} = {n}", pjrt::buffer_type_name(n).unwrap_or_default())
}

fn tensorflow_text(n: i32) -> String {
    format!(
        "{} = {n}",
        tensorflow::data_type_name(n).unwrap_or_default()
    )
}

/// `NumPy bfloat16, DLPack kDLBfloat bits=16 lanes=1, ...`, or `None`
/// when no system names `t`.
pub fn known_as(t: PrimitiveType) -> Option<String> {
    let n = names(t);
    let parts: Vec<String> = [
        n.numpy.map(|s| format!("NumPy {s}")),
        n.dlpack.map(|d| format!("DLPack {d}")),
        n.pjrt.map(|p| format!("PJRT {}", pjrt_text(p))),
        n.safetensors.map(|s| format!("safetensors {s}")),
        n.tensorflow
            .map(|d| format!("TensorFlow {}", tensorflow_text(d))),
    ]
    .into_iter()
    .flatten()
    .collect();
    (!parts.is_empty()).then(|| parts.join(", "))
}

/// The names of `t` as a JSON object (`null` where a system has none).
pub fn names_json(t: PrimitiveType) -> Json {
    let n = names(t);
    json!({
        "numpy": n.numpy,
        "dlpack": n.dlpack.map(|d| json!({"code": d.code, "bits": d.bits, "lanes": d.lanes})),
        "pjrt": n.pjrt,
        "safetensors": n.safetensors,
        "tensorflow": n.tensorflow,
    })
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
    let dash = |s: Option<String>| s.unwrap_or_else(|| "-".to_string());
    let rows: Vec<[String; 6]> = types
        .map(|t| {
            let n = names(t);
            [
                t.lowercase_name().to_string(),
                dash(n.numpy.map(str::to_string)),
                dash(n.dlpack.map(|d| d.to_string())),
                dash(n.pjrt.map(pjrt_text)),
                dash(n.safetensors.map(str::to_string)),
                dash(n.tensorflow.map(tensorflow_text)),
            ]
        })
        .collect();
    let header = [
        "xla",
        "numpy",
        "dlpack",
        "pjrt",
        "safetensors",
        "tensorflow",
    ]
    .map(String::from);
    let mut widths = [0usize; 6];
    for row in std::iter::once(&header).chain(&rows) {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.len());
        }
    }
    for row in std::iter::once(&header).chain(&rows) {
        let mut line = String::new();
        for (i, (cell, w)) in row.iter().zip(widths).enumerate() {
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
