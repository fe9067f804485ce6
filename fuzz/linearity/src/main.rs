//! How each parser's time grows with its input: every input family is
//! built at 1, 2, 4, 8 and 16 MiB and timed (best of three runs); the
//! report gives nanoseconds per input byte at each size. Linear cost shows
//! as a flat row.
//!
//! ```sh
//! cargo run --release --manifest-path fuzz/linearity/Cargo.toml
//! # only the families whose name contains "JSON", up to 64 MiB:
//! cargo run --release --manifest-path fuzz/linearity/Cargo.toml -- JSON 64
//! ```

use std::hint::black_box;
use std::time::{Duration, Instant};

use xla_shape::formats::{self, JsonOptions, LosslessMessage, ProtoFormats};
use xla_shape::hlo::{HloModule, MemoryReport};
use xla_shape::memory::{self, EstimateOptions};
use xla_shape::proto::ShapeProto;
use xla_shape::stablehlo::StableHloModule;
use xla_shape::sharding::{HloSharding, shardy};
use xla_shape::text::shapes_in_hlo;
use xla_shape::tiling::TiledLayout;
use xla_shape::{Layout, Shape};

const MIB: usize = 1 << 20;

#[path = "../../../tests/common/vhlo_bytecode.rs"]
mod vhlo_bytecode;

/// `unit` repeated until the text is at least `size` bytes, between
/// `prefix` and `suffix`.
fn fill(prefix: &str, unit: &str, separator: &str, suffix: &str, size: usize) -> String {
    let n = size / (unit.len() + separator.len()) + 1;
    let mut s = String::with_capacity(size + prefix.len() + suffix.len() + unit.len());
    s.push_str(prefix);
    for i in 0..n {
        if i > 0 {
            s.push_str(separator);
        }
        s.push_str(unit);
    }
    s.push_str(suffix);
    s
}

/// The top-level fields of `HloProto` bytes: its module (field 1) and its
/// buffer assignment (field 3), each with its key and length.
fn split_hlo_proto(bytes: &[u8]) -> (Vec<u8>, Vec<u8>) {
    let varint = |at: &mut usize| {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = bytes[*at];
            *at += 1;
            v |= u64::from(b & 0x7f) << shift;
            if b < 0x80 {
                break;
            }
        }
        v
    };
    let (mut module, mut assignment) = (Vec::new(), Vec::new());
    let mut at = 0;
    while at < bytes.len() {
        let start = at;
        let key = varint(&mut at);
        assert_eq!(key & 7, 2, "HloProto's fields are length-delimited");
        let len = varint(&mut at) as usize;
        at += len;
        match key >> 3 {
            1 => module.extend_from_slice(&bytes[start..at]),
            3 => assignment.extend_from_slice(&bytes[start..at]),
            _ => {}
        }
    }
    (module, assignment)
}

fn best_of_three(f: &mut dyn FnMut()) -> Duration {
    (0..3)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap()
}

/// Runs a parser over one input.
type Run = Box<dyn Fn(&[u8])>;

struct Family {
    name: &'static str,
    make: Box<dyn Fn(usize) -> Vec<u8>>,
    run: Run,
}

fn text(f: impl Fn(&str) + 'static) -> Run {
    Box::new(move |b| f(std::str::from_utf8(b).unwrap()))
}

/// Every entry of `t` explained, one at a time, as the CLI does.
fn explain_padding(t: &str) {
    let options = memory::PaddingOptions::new();
    black_box(memory::padding_entries(t, &options).count());
}

fn main() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/hlo/");
    let mut module = String::new();
    for name in ["matmul_bf16", "conv_nchw", "reduce_variadic", "scan_tuple"] {
        module.push_str(&std::fs::read_to_string(format!("{root}{name}.txt")).unwrap());
        module.push('\n');
    }
    let module_for = move |size: usize| module.repeat(size / module.len() + 1).into_bytes();
    // Whole modules: XLA's text of one golden module repeated is a module
    // with that many computations (the names repeat, which the view does
    // not check), and concatenated HloModuleProto messages are one message
    // whose repeated fields (the computations) append.
    let text_module = std::fs::read_to_string(format!("{root}reduce_variadic.txt")).unwrap();
    let (header, body) = text_module.split_once('\n').unwrap();
    let header = header.to_owned();
    let body = body.to_owned();
    let module_text = move |size: usize| {
        let mut s = header.clone();
        s.push('\n');
        s.push_str(&body.repeat(size / body.len() + 1));
        s.into_bytes()
    };
    let pb = std::fs::read(format!("{root}reduce_variadic.pb")).unwrap();
    let module_pb = move |size: usize| pb.repeat(size / pb.len() + 1);
    let module_descriptor = || {
        xla_shape::proto::DESCRIPTOR_POOL
            .get_message_by_name("xla.HloModuleProto")
            .unwrap()
    };
    let pb_as = {
        let module_pb = module_pb.clone();
        std::rc::Rc::new(move |size: usize, write: fn(&LosslessMessage) -> String| {
            let bytes = module_pb(size / 2);
            let m = LosslessMessage::decode(module_descriptor(), &bytes[..]).unwrap();
            let mut s = write(&m);
            while s.len() < size {
                // The JSON and text format are larger than the bytes: halve
                // until they fit, then repeat the computations.
                let more = module_pb(size * bytes.len() / s.len() + 1);
                let m = LosslessMessage::decode(module_descriptor(), &more[..]).unwrap();
                s = write(&m);
            }
            s.into_bytes()
        })
    };
    // Memory analysis: a golden HloProto (jaxlib 0.10.2's dump of an LSTM's
    // gradient, with its buffer assignment) whose module is kept once and
    // whose buffer assignment (field 3) is given again and again: the
    // occurrences merge, so its buffers, allocations and heap traces
    // append. And a module text whose entry adds the two instructions
    // before each one.
    let hlo_proto = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/memory/lstm_scan_grad/hlo.pb"
    ))
    .unwrap();
    let (module_field, assignment_field) = split_hlo_proto(&hlo_proto);
    let memory_proto = move |size: usize| {
        let mut out = module_field.clone();
        while out.len() < size {
            out.extend_from_slice(&assignment_field);
        }
        out
    };
    let chain_text = |size: usize| {
        let mut text = String::from(
            "HloModule m\n\nENTRY e {\n  a0 = f32[1024]{0} parameter(0)\n  a1 = f32[1024]{0} negate(a0)\n",
        );
        let mut k = 2;
        while text.len() < size {
            text.push_str(&format!("  a{k} = f32[1024]{{0}} add(a{}, a{})\n", k - 1, k - 2));
            k += 1;
        }
        text.push_str(&format!("  ROOT r = f32[1024]{{0}} negate(a{})\n}}\n", k - 1));
        text.into_bytes()
    };
    let pb_as_text = pb_as.clone();
    let pb_as_text_long = pb_as.clone();

    // StableHLO text: every golden jax program (with debug locations) one
    // after another, repeated; each is a `module` of its own.
    let programs = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/stablehlo/programs/"
    );
    let mut stablehlo = String::new();
    let mut names: Vec<_> = std::fs::read_dir(programs)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".debug.mlir"))
        .collect();
    names.sort();
    for name in names {
        stablehlo.push_str(&std::fs::read_to_string(format!("{programs}{name}")).unwrap());
    }
    let stablehlo_for =
        move |size: usize| stablehlo.repeat(size / stablehlo.len() + 1).into_bytes();

    let families = vec![
        Family {
            name: "StableHLO bytecode: a chain of additions (from_bytecode)",
            make: Box::new(vhlo_bytecode::chain_of_adds_of_size),
            run: Box::new(|b: &[u8]| {
                black_box(StableHloModule::from_bytecode(b).unwrap());
            }),
        },
        Family {
            name: "StableHLO bytecode: a chain of additions (signature, every op's shape and location name)",
            make: Box::new(vhlo_bytecode::chain_of_adds_of_size),
            run: Box::new(|b: &[u8]| {
                let m = StableHloModule::from_bytecode(b).unwrap();
                black_box(m.signature().unwrap());
                for (_, op) in m.operations() {
                    for ty in &op.result_types {
                        let _ = black_box(ty.to_shape());
                    }
                    if let Some(l) = &op.debug_location {
                        black_box(m.location_name(l));
                    }
                }
            }),
        },
        Family {
            name: "StableHLO text: jax programs (from_text)",
            make: Box::new(stablehlo_for.clone()),
            run: text(|t| {
                black_box(StableHloModule::from_text(t).unwrap());
            }),
        },
        Family {
            name: "StableHLO text: jax programs (signature, every op's shape and location name)",
            make: Box::new(stablehlo_for),
            run: text(|t| {
                let m = StableHloModule::from_text(t).unwrap();
                black_box(m.signature().unwrap());
                for (_, op) in m.operations() {
                    for ty in &op.result_types {
                        let _ = black_box(ty.to_shape());
                    }
                    if let Some(l) = &op.debug_location {
                        black_box(m.location_name(l));
                    }
                }
            }),
        },
        Family {
            name: "StableHLO text: a chain of transposes to the result",
            make: Box::new(|n| {
                let op = "  %x = stablehlo.transpose %x, dims = [1, 0] : (tensor<2x2xf32>) -> tensor<2x2xf32>\n";
                fill(
                    "func.func public @main(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {\n",
                    op,
                    "",
                    "  return %x : tensor<2x2xf32>\n}\n",
                    n,
                )
                .into_bytes()
            }),
            run: text(|t| {
                let m = StableHloModule::from_text(t).unwrap();
                black_box(m.signature().unwrap());
            }),
        },
        Family {
            name: "StableHLO text: one op with many result types",
            make: Box::new(|n| {
                let count = n / 14;
                let mut s = format!("func.func @main() {{\n  %0:{count} = a.b : ");
                s.push_str(&vec!["tensor<2xf32>"; count].join(","));
                s.push_str("\n}\n");
                s.into_bytes()
            }),
            run: text(|t| {
                black_box(StableHloModule::from_text(t).unwrap());
            }),
        },
        Family {
            name: "StableHLO text: regions 90 deep, repeated",
            make: Box::new(|n| {
                let unit = format!(
                    "{}{}",
                    "%0 = \"a.b\"() ({\n".repeat(90),
                    "}) : () -> tensor<f32>\n".repeat(90)
                );
                fill("func.func @main() {\n", &unit, "", "}\n", n).into_bytes()
            }),
            run: text(|t| {
                black_box(StableHloModule::from_text(t).unwrap());
            }),
        },
        Family {
            name: "StableHLO text: a long attribute dictionary",
            make: Box::new(|n| {
                fill(
                    "module attributes {",
                    "a.b = [1, \"}\", {c = 2}]",
                    ", ",
                    "} {\n}\n",
                    n,
                )
                .into_bytes()
            }),
            run: text(|t| {
                black_box(StableHloModule::from_text(t).unwrap());
            }),
        },
        Family {
            name: "StableHLO text: tuple types 99 deep, repeated",
            make: Box::new(|n| {
                let ty = format!("{}tensor<f32>{}", "tuple<".repeat(98), ">".repeat(98));
                fill(
                    "func.func @main(",
                    &format!("%a: {ty}"),
                    ", ",
                    ") {\n}\n",
                    n,
                )
                .into_bytes()
            }),
            run: text(|t| {
                black_box(StableHloModule::from_text(t).unwrap());
            }),
        },
        Family {
            name: "StableHLO text: an error at the end of a long module",
            make: Box::new(|n| {
                fill(
                    "func.func @main() {\n",
                    "  %0 = a.b : tensor<f32>\n",
                    "",
                    "  %1 = a.b : tensor<2xfoo>\n}\n",
                    n,
                )
                .into_bytes()
            }),
            run: text(|t| {
                let _ = black_box(StableHloModule::from_text(t));
            }),
        },
        Family {
            name: "memory: HloProto (view, exact analysis)",
            make: Box::new(memory_proto),
            run: Box::new(|b| {
                let m = HloModule::read(b).unwrap();
                black_box(memory::analyze(&m).unwrap().peak());
            }),
        },
        Family {
            name: "memory: module text (view, estimate)",
            make: Box::new(chain_text),
            run: text(|t| {
                let m = HloModule::from_text(t).unwrap();
                let options = EstimateOptions::default();
                black_box(memory::estimate(&m, &options).unwrap().peak());
            }),
        },
        Family {
            name: "padding: XLA:TPU listing (jax-ml/jax#7502, repeated)",
            make: Box::new(|n| {
                let listing = std::fs::read_to_string(concat!(
                    env!("CARGO_MANIFEST_DIR"),
                    "/../../tests/data/listings/jax-ml_jax_7502.txt"
                ))
                .unwrap();
                listing.repeat(n / listing.len() + 1).into_bytes()
            }),
            run: text(explain_padding),
        },
        Family {
            name: "padding: `Shape: x` lines (parse errors)",
            make: Box::new(|n| fill("", "Shape: x", "\n", "\n", n).into_bytes()),
            run: text(explain_padding),
        },
        Family {
            name: "padding: one line of `Size: ` keys",
            make: Box::new(|n| fill("  1. Size: 1B", " Size: 1B", "", "\n", n).into_bytes()),
            run: text(explain_padding),
        },
        Family {
            name: "padding: a tuple of tiled arrays",
            make: Box::new(|n| fill("(", "f32[3,5]{1,0:T(2,2)}", ",", ")", n).into_bytes()),
            run: text(explain_padding),
        },
        Family {
            name: "module text: HloModule::from_text",
            make: Box::new(module_text.clone()),
            run: text(|t| {
                let _ = black_box(HloModule::from_text(t).unwrap());
            }),
        },
        Family {
            name: "module text: report (view, MemoryReport)",
            make: Box::new(module_text),
            run: text(|t| {
                let m = HloModule::from_text(t).unwrap();
                black_box(MemoryReport::new(&m).unwrap().largest(10).len());
            }),
        },
        Family {
            name: "module .pb: HloModule::read",
            make: Box::new(module_pb.clone()),
            run: Box::new(|b| {
                let _ = black_box(HloModule::read(b).unwrap());
            }),
        },
        Family {
            name: "module .pb: report (view, MemoryReport)",
            make: Box::new(module_pb.clone()),
            run: Box::new(|b| {
                let m = HloModule::read(b).unwrap();
                black_box(MemoryReport::new(&m).unwrap().largest(10).len());
            }),
        },
        Family {
            name: "module message: binary (lossless decode, encode)",
            make: Box::new(module_pb),
            run: Box::new(move |b| {
                let m = LosslessMessage::decode(module_descriptor(), b).unwrap();
                black_box(m.encode_to_vec());
            }),
        },
        Family {
            name: "module message: JSON (read)",
            make: Box::new(move |n| pb_as(n, |m| m.to_json(&JsonOptions::new()))),
            run: text(move |t| {
                black_box(formats::from_json_dynamic(module_descriptor(), t).unwrap());
            }),
        },
        Family {
            name: "module message: text format (read)",
            make: Box::new(move |n| pb_as_text(n, |m| m.to_text_format())),
            run: text(move |t| {
                black_box(formats::from_text_format_dynamic(module_descriptor(), t).unwrap());
            }),
        },
        Family {
            // One valid string of 64 KiB more: the reader replaces it and
            // reads the edited text, then (as that reads) the text itself.
            name: "module message: text format with a 64 KiB string (read)",
            make: Box::new(move |n| {
                let mut text = pb_as_text_long(n, |m| m.to_text_format());
                text.extend_from_slice(b"computations {\n  name: \"");
                text.resize(text.len() + (64 << 10), b'x');
                text.extend_from_slice(b"\"\n}\n");
                text
            }),
            run: text(move |t| {
                black_box(formats::from_text_format_dynamic(module_descriptor(), t).unwrap());
            }),
        },
        Family {
            name: "HLO scan: golden modules",
            make: Box::new(module_for),
            run: text(|t| {
                black_box(shapes_in_hlo(t).count());
            }),
        },
        Family {
            name: "HLO scan: (((...",
            make: Box::new(|n| "(".repeat(n).into_bytes()),
            run: text(|t| {
                black_box(shapes_in_hlo(t).count());
            }),
        },
        Family {
            name: "HLO scan: f32[f32[f32[...",
            make: Box::new(|n| fill("", "f32[", "", "", n).into_bytes()),
            run: text(|t| {
                black_box(shapes_in_hlo(t).count());
            }),
        },
        Family {
            name: "HLO scan: (f32[2],(f32[2],...",
            make: Box::new(|n| fill("", "(f32[2]", ",", "", n).into_bytes()),
            run: text(|t| {
                black_box(shapes_in_hlo(t).count());
            }),
        },
        Family {
            // 99 unclosed tuples, each with a long list of elements: the
            // scan tries a tuple at every `(` and each attempt reads on to
            // the end, so the cost is up to 99 times that of one parse.
            name: "HLO scan: 99 unclosed tuples of many f32[]",
            make: Box::new(|n| {
                let level = fill("(", "f32[]", ",", ",", n / 99);
                level.repeat(99).into_bytes()
            }),
            run: text(|t| {
                black_box(shapes_in_hlo(t).count());
            }),
        },
        Family {
            name: "parse Shape: (((...",
            make: Box::new(|n| "(".repeat(n).into_bytes()),
            run: text(|t| {
                let _ = black_box(t.parse::<Shape>());
            }),
        },
        Family {
            name: "parse Shape: rank f32[1,1,...]",
            make: Box::new(|n| fill("f32[", "1", ",", "]", n).into_bytes()),
            run: text(|t| {
                let _ = black_box(t.parse::<Shape>());
            }),
        },
        Family {
            name: "parse Shape: tuple (f32[],f32[],...)",
            make: Box::new(|n| fill("(", "f32[]", ",", ")", n).into_bytes()),
            run: text(|t| {
                let _ = black_box(t.parse::<Shape>());
            }),
        },
        Family {
            name: "parse Shape: tiles f32[2]{0:T(2)(2)...}",
            make: Box::new(|n| fill("f32[2]{0:T", "(2)", "", "}", n).into_bytes()),
            run: text(|t| {
                let _ = black_box(t.parse::<Shape>());
            }),
        },
        Family {
            name: "parse Shape: error in a long tuple (f32[],...,f32[-1])",
            make: Box::new(|n| fill("(", "f32[]", ",", ",f32[-1])", n).into_bytes()),
            run: text(|t| {
                let _ = black_box(t.parse::<Shape>());
            }),
        },
        Family {
            name: "parse Layout: split configs {0:SC(0:1)(0:1)...}",
            make: Box::new(|n| fill("{0:SC", "(0:1)", "", "}", n).into_bytes()),
            run: text(|t| {
                let _ = black_box(t.parse::<Layout>());
            }),
        },
        Family {
            name: "ShapeProto bytes: tuple of f32[]",
            make: Box::new(|n| {
                let count = n / 9 + 1;
                let s = Shape::Tuple(vec!["f32[]".parse::<Shape>().unwrap(); count]);
                s.to_proto_bytes()
            }),
            run: Box::new(|b| {
                let _ = black_box(Shape::from_proto_bytes(b));
            }),
        },
        Family {
            name: "ShapeProto bytes: 0x28 0x28 ... (unknown varints)",
            make: Box::new(|n| vec![0x28; n]),
            run: Box::new(|b| {
                let _ = black_box(Shape::from_proto_bytes(b));
            }),
        },
        Family {
            name: "JSON: [[[...",
            make: Box::new(|n| "[".repeat(n).into_bytes()),
            run: text(|t| {
                let _ = black_box(formats::from_json::<ShapeProto>(t));
            }),
        },
        Family {
            name: "JSON: tuple of f32[]",
            make: Box::new(|n| {
                let unit = r#"{"elementType":"F32"}"#;
                fill(
                    r#"{"elementType":"TUPLE","tupleShapes":["#,
                    unit,
                    ",",
                    "]}",
                    n,
                )
                .into_bytes()
            }),
            run: text(|t| {
                let _ = black_box(Shape::from_json(t));
            }),
        },
        Family {
            name: "JSON: dimensions [1,1,...]",
            make: Box::new(|n| {
                fill(r#"{"elementType":"F32","dimensions":["#, "1", ",", "]}", n).into_bytes()
            }),
            run: text(|t| {
                let _ = black_box(formats::from_json::<ShapeProto>(t));
            }),
        },
        Family {
            name: "text format: tuple_shapes { ...",
            make: Box::new(|n| fill("", "tuple_shapes {", " ", "", n).into_bytes()),
            run: text(|t| {
                let _ = black_box(formats::from_text_format::<ShapeProto>(t));
            }),
        },
        Family {
            name: "text format: tuple of f32[]",
            make: Box::new(|n| {
                fill(
                    "element_type: TUPLE ",
                    "tuple_shapes { element_type: F32 }",
                    " ",
                    "",
                    n,
                )
                .into_bytes()
            }),
            run: text(|t| {
                let _ = black_box(Shape::from_text_format(t));
            }),
        },
        Family {
            name: "text format: dimensions: 1 dimensions: 1 ...",
            make: Box::new(|n| {
                fill("element_type: F32 ", "dimensions: 1", " ", "", n).into_bytes()
            }),
            run: text(|t| {
                let _ = black_box(formats::from_text_format::<ShapeProto>(t));
            }),
        },
        Family {
            name: "JSON: one long unknown key",
            make: Box::new(|n| fill("{\"", "x", "", "\": 1}", n).into_bytes()),
            run: text(|t| {
                let _ = black_box(formats::from_json::<ShapeProto>(t));
            }),
        },
        Family {
            name: "JSON: one long enum name",
            make: Box::new(|n| fill("{\"elementType\": \"", "x", "", "\"}", n).into_bytes()),
            run: text(|t| {
                let _ = black_box(formats::from_json::<ShapeProto>(t));
            }),
        },
        Family {
            name: "text format: one long field name",
            make: Box::new(|n| fill("", "x", "", ": 1", n).into_bytes()),
            run: text(|t| {
                let _ = black_box(formats::from_text_format::<ShapeProto>(t));
            }),
        },
        Family {
            // An explicit device list in reverse, each replication group
            // sorted (XLA's PartialTile).
            name: "sharding text: {devices=[n,2]...,1,0 last_tile_dim_replicate}",
            make: Box::new(|n| {
                let count = n / 7 / 2 * 2;
                let devices: Vec<String> = (0..count).rev().map(|d| d.to_string()).collect();
                format!(
                    "{{devices=[{},2]{} last_tile_dim_replicate}}",
                    count / 2,
                    devices.join(",")
                )
                .into_bytes()
            }),
            run: text(|t| {
                black_box(t.parse::<HloSharding>().unwrap());
            }),
        },
        Family {
            name: "sharding text: a tuple of {replicated metadata={...}}",
            make: Box::new(|n| {
                fill(
                    "{",
                    "{replicated metadata={op_name=\"jit(f)/dot\" source_line=3}}",
                    ", ",
                    "}",
                    n,
                )
                .into_bytes()
            }),
            run: text(|t| {
                black_box(t.parse::<HloSharding>().unwrap());
            }),
        },
        Family {
            name: "OpSharding bytes: a tuple of tiled shardings (decode, encode)",
            make: Box::new(|n| {
                let one = "{devices=[2,2]3,2,1,0 last_tile_dims={manual}}";
                let count = n / 24;
                let text = format!("{{{}}}", vec![one; count].join(", "));
                text.parse::<HloSharding>().unwrap().to_proto_bytes()
            }),
            run: Box::new(|b| {
                black_box(HloSharding::from_proto_bytes(b).unwrap().to_proto_bytes());
            }),
        },
        Family {
            name: "Shardy text: a mesh of n axes, a dimension each (parse, convert)",
            make: Box::new(|n| {
                let count = n / 20;
                let axes: Vec<String> = (0..count).map(|i| format!("\"a{i}\"=1")).collect();
                let dims: Vec<String> = (0..count).map(|i| format!("{{\"a{i}\"}}")).collect();
                format!(
                    "<[{}]>\n#sdy.sharding<@mesh, [{}]>",
                    axes.join(", "),
                    dims.join(", ")
                )
                .into_bytes()
            }),
            run: text(|t| {
                let (mesh, sharding) = t.split_once('\n').unwrap();
                let (_, mesh) = shardy::parse_mesh(mesh).unwrap();
                let s: shardy::ShardySharding = sharding.parse().unwrap();
                black_box(s.to_hlo_sharding(&mesh).unwrap());
            }),
        },
        Family {
            // T(3) cuts T(8)'s remainder across digits, so every element
            // is mapped through the tiling graph, which every (1) tile
            // grows: parse, build and map all 4096 elements both ways.
            name: "tiling: 4096 offsets in f32[4096]{0:T(8)(3)(1)(1)...}",
            make: Box::new(|n| fill("f32[4096]{0:T(8)(3)", "(1)", "", "}", n).into_bytes()),
            run: text(|t| {
                let shape = t.parse::<Shape>().unwrap();
                let tiled = TiledLayout::new(shape.as_array().unwrap()).unwrap();
                let mut index = [0i64];
                for i in 0..4096 {
                    let offset = tiled.offset(&[i]).unwrap();
                    black_box(tiled.slot_into(offset, &mut index).unwrap());
                }
            }),
        },
    ];

    // Optional arguments: a part of the names of the families to run, and
    // the largest size in MiB (16 by default).
    let args: Vec<String> = std::env::args().skip(1).collect();
    let filter = args.first().map_or("", String::as_str);
    let max_mib: usize = args
        .get(1)
        .map_or(16, |a| a.parse().expect("a size in MiB"));
    let sizes: Vec<usize> = (0..)
        .map(|k| 1usize << k)
        .take_while(|&m| m <= max_mib)
        .collect();
    let header: Vec<String> = sizes.iter().map(|m| format!("{m} MiB")).collect();
    println!("| input | {} |", header.join(" | "));
    println!("| --- |{}", " --- |".repeat(sizes.len()));
    for f in families.iter().filter(|f| f.name.contains(filter)) {
        let mut row = format!("| {} |", f.name);
        for &size in &sizes {
            let size = size * MIB;
            let input = (f.make)(size);
            let t = best_of_three(&mut || (f.run)(&input));
            row.push_str(&format!(
                " {:.1} |",
                t.as_nanos() as f64 / input.len() as f64
            ));
        }
        println!("{row}");
    }
    println!("\n(nanoseconds per input byte, best of three runs)");
}
