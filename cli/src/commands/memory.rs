//! `memory`: how much memory an HLO module needs, exact from XLA's buffer
//! assignment when the input carries it (an `HloProto` or `HloSnapshot`),
//! estimated otherwise (`xla_shape::memory`, docs/memory.md); of a
//! StableHLO module (text, bytecode or a `jax.export` serialization), its
//! arguments and outputs from the signature; per device where the entry's
//! values carry shardings; as a summary, one JSON document, or an SVG
//! picture of the live bytes over the program.

use std::fmt::Write as _;
use std::io::Write;

use serde_json::{Value, json};
use xla_shape::memory::{self, MemoryAnalysis, PeakBuffer, Source};

use crate::Context;
use crate::input::Module;
use crate::output::{Failure, bytes, cut, escape, human, printable};

/// The arguments of `memory`.
#[derive(Clone, Debug, clap::Args)]
pub struct Args {
    /// The modules (standard input when absent or '-'); several are
    /// reported one after the other, a section each.
    pub input: Vec<String>,
    /// Write an SVG picture of the live bytes over the program instead.
    #[arg(long, conflicts_with = "json")]
    pub svg: bool,
    /// How many of the largest buffers live at the peak to list.
    #[arg(long, default_value_t = 10)]
    pub top: usize,
}

/// What `memory` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Form {
    /// The summary, for a reader.
    Text,
    /// One JSON document.
    Json,
    /// An SVG picture.
    Svg,
}

/// `xla-shape memory [--json | --svg] [--top N] [INPUT...]`.
pub fn run(args: &Args, cx: &mut Context<impl Write>) -> Result<(), Failure> {
    if args.svg && args.input.len() > 1 {
        return Err(Failure::Usage(
            "--svg draws one module: give one input".into(),
        ));
    }
    cx.each_input(&args.input, |input, cx| analyze(args, input, cx))
}

/// The analysis of one module.
fn analyze(args: &Args, input: Option<&str>, cx: &mut Context<impl Write>) -> Result<(), Failure> {
    let form = match (args.svg, cx.json) {
        (true, _) => Form::Svg,
        (false, true) => Form::Json,
        (false, false) => Form::Text,
    };
    let top = args.top;
    let analysis = analysis_of(&cx.read_module(input)?)?;
    let out = &mut cx.out;
    match form {
        Form::Json => {
            serde_json::to_writer(&mut *out, &to_json(&analysis, top))
                .map_err(std::io::Error::from)?;
            out.write_all(b"\n")?;
        }
        Form::Svg => out.write_all(svg(&analysis, top).as_bytes())?,
        Form::Text => out.write_all(text(&analysis, top).as_bytes())?,
    }
    Ok(())
}

/// The analysis of `module`: of an HLO module, XLA's buffer assignment
/// read or simulated; of StableHLO, its signature's arguments and outputs.
pub fn analysis_of(module: &Module) -> xla_shape::Result<MemoryAnalysis> {
    match module {
        Module::Hlo(module) => memory::analyze(module),
        Module::StableHlo(module) => memory::analyze_stablehlo(module),
    }
}

/// Short bytes for the picture: `11.8 MiB`, `512 B`.
fn short(n: i64) -> String {
    human(n).unwrap_or_else(|| format!("{n} B"))
}

fn source_line(a: &MemoryAnalysis) -> &'static str {
    match a.source {
        Source::BufferAssignment => {
            "exact: XLA's buffer assignment, which the input carries (compiled.memory_analysis() gives the same)"
        }
        _ if !a.temporaries_counted => {
            "estimated from the signature: arguments and outputs as XLA compiles them; temporaries\n\
             are not counted (StableHLO: the operations are not simulated), so the peak leaves them out"
        }
        _ => {
            "estimated: XLA's buffer assignment simulated on the module as written (close to XLA's\n\
             after optimization; before it, fusion decides what is materialized: docs/memory.md)"
        }
    }
}

/// The summary.
fn text(a: &MemoryAnalysis, top: usize) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "module {}", printable(&a.module));
    let _ = writeln!(s, "{}\n", source_line(a));
    let rows = [
        (
            "arguments",
            a.arguments,
            "the entry computation's parameters",
        ),
        (
            "outputs",
            a.outputs,
            "the result, tuple index tables included",
        ),
        (
            "aliased",
            a.aliased,
            "argument bytes that outputs reuse (donated)",
        ),
        (
            "temporaries",
            a.temporaries,
            "the block XLA packs every temporary into",
        ),
    ];
    for (name, n, what) in rows {
        if name == "temporaries" && !a.temporaries_counted {
            let _ = writeln!(s, "  {name:<13} {:>28}  not counted", "-");
            continue;
        }
        let _ = writeln!(s, "  {name:<13} {:>28}  {what}", bytes(n));
    }
    let _ = writeln!(
        s,
        "  {:<13} {:>28}  what must fit: arguments + outputs + temporaries - aliased{}",
        "peak",
        bytes(a.peak()),
        if a.temporaries_counted {
            ""
        } else {
            " (temporaries not counted)"
        }
    );
    if let Some(total) = a.allocations_total {
        let _ = writeln!(
            s,
            "  {:<13} {:>28}  every allocation (constants and thread-local too): XLA's \"Total bytes\"",
            "allocations",
            bytes(total)
        );
    }
    let h = &a.host;
    if (h.arguments, h.outputs, h.aliased, h.temporaries) != (0, 0, 0, 0) {
        let _ = writeln!(
            s,
            "  host memory: arguments {}, outputs {}, aliased {}, temporaries {}",
            bytes(h.arguments),
            bytes(h.outputs),
            bytes(h.aliased),
            bytes(h.temporaries)
        );
    }
    let _ = writeln!(s, "\nallocations by kind");
    for k in &a.by_kind {
        let space = if k.memory_space == 0 {
            String::new()
        } else {
            format!(" (memory space {})", k.memory_space)
        };
        let _ = writeln!(
            s,
            "  {:<13} {:>6} {:>28}{space}",
            k.kind.as_str(),
            k.count,
            bytes(k.bytes)
        );
    }
    if let Some(max) = a.device_max() {
        let same = a
            .devices
            .iter()
            .all(|d| (d.arguments, d.outputs) == (max.arguments, max.outputs));
        let _ = writeln!(
            s,
            "\nper device, after partitioning ({} device{}{})",
            a.devices.len(),
            if a.devices.len() == 1 { "" } else { "s" },
            if same && a.devices.len() > 1 {
                ", each the same"
            } else {
                ""
            }
        );
        let shown: Vec<_> = if same {
            vec![max]
        } else {
            a.devices.iter().collect()
        };
        for d in shown {
            let who = if same && a.devices.len() > 1 {
                "each".to_string()
            } else {
                format!("device {}", d.device)
            };
            let _ = writeln!(
                s,
                "  {who:<10} arguments {}, outputs {}",
                bytes(d.arguments),
                bytes(d.outputs)
            );
        }
        if !same {
            let _ = writeln!(
                s,
                "  max        device {}: arguments {}, outputs {}",
                max.device,
                bytes(max.arguments),
                bytes(max.outputs)
            );
        }
    }
    if let Some(step) = a.peak_step() {
        let at = &a.timeline[step];
        let _ = writeln!(
            s,
            "\nlive bytes peak at step {} of {} ({}): {}",
            step + 1,
            a.timeline.len(),
            printable(&at.instruction),
            bytes(at.live)
        );
    }
    let shown = a.peak_buffers.len().min(top);
    if shown > 0 {
        let _ = writeln!(
            s,
            "\nlargest buffers live at the peak ({shown} of {})",
            a.peak_buffers.len()
        );
        for b in &a.peak_buffers[..shown] {
            let _ = writeln!(
                s,
                "  {:>22}  {:<11} {}  {}",
                bytes(b.bytes),
                b.kind.as_str(),
                buffer_name(b),
                printable(&b.shape)
            );
        }
    }
    s
}

/// `computation/instruction{index}`.
fn buffer_name(b: &PeakBuffer) -> String {
    let index = if b.shape_index.is_empty() {
        String::new()
    } else {
        let parts: Vec<String> = b.shape_index.iter().map(i64::to_string).collect();
        format!("{{{}}}", parts.join(","))
    };
    format!(
        "{}/{}{index}",
        printable(&b.computation),
        printable(&b.instruction)
    )
}

fn peak_buffer_json(b: &PeakBuffer) -> Value {
    json!({
        "instruction": b.instruction,
        "computation": b.computation,
        "shape_index": b.shape_index,
        "shape": b.shape,
        "bytes": b.bytes,
        "kind": b.kind.as_str(),
    })
}

/// The JSON document of `--json`, with the `top` largest buffers live at
/// the peak.
pub fn to_json(a: &MemoryAnalysis, top: usize) -> Value {
    let peak_step = a.peak_step().map(|k| {
        json!({
            "step": k,
            "steps": a.timeline.len(),
            "instruction": a.timeline[k].instruction,
            "live": a.timeline[k].live,
        })
    });
    let counted = a.temporaries_counted;
    let devices: Vec<Value> = a
        .devices
        .iter()
        .map(|d| json!({"device": d.device, "arguments": d.arguments, "outputs": d.outputs}))
        .collect();
    let device_max = a
        .device_max()
        .map(|d| json!({"device": d.device, "arguments": d.arguments, "outputs": d.outputs}));
    json!({
        "module": a.module,
        "source": a.source.as_str(),
        "arguments": a.arguments,
        "outputs": a.outputs,
        "aliased": a.aliased,
        "temporaries": counted.then_some(a.temporaries),
        "temporaries_counted": counted,
        "peak": a.peak(),
        "devices": devices,
        "device_max": device_max,
        "allocations_total": a.allocations_total,
        "host": {
            "arguments": a.host.arguments,
            "outputs": a.host.outputs,
            "aliased": a.host.aliased,
            "temporaries": a.host.temporaries,
        },
        "by_kind": a.by_kind.iter().map(|k| json!({
            "kind": k.kind.as_str(),
            "memory_space": k.memory_space,
            "count": k.count,
            "bytes": k.bytes,
        })).collect::<Vec<_>>(),
        "peak_step": peak_step,
        "peak_buffers": a.peak_buffers.iter().take(top).map(peak_buffer_json).collect::<Vec<_>>(),
        "peak_buffers_count": a.peak_buffers.len(),
    })
}

/// The picture's size and margins.
const WIDTH: f64 = 960.0;
const CHART_LEFT: f64 = 90.0;
const CHART_RIGHT: f64 = 940.0;
const CHART_TOP: f64 = 90.0;
const CHART_BOTTOM: f64 = 390.0;
const BAR_TOP: f64 = 450.0;
const BAR_HEIGHT: f64 = 22.0;

/// The SVG picture: the live bytes over the program as XProf's memory
/// viewer draws them (program order across, bytes up), the arguments and
/// outputs as the band they hold throughout, the peak marked, and the
/// largest buffers live at the peak as bars with their instruction, shape
/// and bytes.
pub fn svg(a: &MemoryAnalysis, top: usize) -> String {
    let steps = a.timeline.len();
    let shown: Vec<&PeakBuffer> = a.peak_buffers.iter().take(top.min(20)).collect();
    let height = BAR_TOP + 30.0 + BAR_HEIGHT * shown.len() as f64 + 20.0;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let source = match a.source {
        Source::BufferAssignment => "exact (XLA's buffer assignment)",
        _ => "estimated (simulated buffer assignment)",
    };
    let _ = writeln!(
        s,
        r#"<text class="title" x="10" y="24" font-size="16" font-weight="bold">{}: {}</text>"#,
        escape(&a.module),
        short(a.peak())
    );
    let _ = writeln!(
        s,
        r#"<text x="10" y="44">{source}; peak = arguments {} + outputs {} + temporaries {} - aliased {}</text>"#,
        short(a.arguments),
        short(a.outputs),
        short(a.temporaries),
        short(a.aliased)
    );
    let base = a
        .arguments
        .saturating_add(a.outputs)
        .saturating_sub(a.aliased);
    let top_bytes = a
        .timeline
        .iter()
        .map(|t| t.live)
        .chain([a.peak(), base, 1])
        .max()
        .unwrap_or(1)
        .max(1) as f64;
    let y = |v: i64| CHART_BOTTOM - (v.max(0) as f64 / top_bytes) * (CHART_BOTTOM - CHART_TOP);
    let x = |k: usize| {
        if steps <= 1 {
            CHART_LEFT
        } else {
            CHART_LEFT + (CHART_RIGHT - CHART_LEFT) * k as f64 / (steps - 1) as f64
        }
    };
    // Axes and the bytes on the left.
    let _ = writeln!(
        s,
        r##"<g class="axes" stroke="#333333"><line x1="{CHART_LEFT}" y1="{CHART_BOTTOM}" x2="{CHART_RIGHT}" y2="{CHART_BOTTOM}"/><line x1="{CHART_LEFT}" y1="{CHART_TOP}" x2="{CHART_LEFT}" y2="{CHART_BOTTOM}"/></g>"##
    );
    for v in ticks(top_bytes as i64) {
        let yy = y(v);
        let _ = writeln!(
            s,
            r##"<g class="tick"><line x1="{}" y1="{yy:.1}" x2="{CHART_RIGHT}" y2="{yy:.1}" stroke="#e0e0e0"/><text x="{}" y="{:.1}" text-anchor="end">{}</text></g>"##,
            CHART_LEFT,
            CHART_LEFT - 6.0,
            yy + 4.0,
            short(v)
        );
    }
    let _ = writeln!(
        s,
        r#"<text x="{}" y="{}" text-anchor="middle">program order ({steps} steps{})</text>"#,
        (CHART_LEFT + CHART_RIGHT) / 2.0,
        CHART_BOTTOM + 24.0,
        match a.source {
            Source::BufferAssignment => ", XLA's heap trace",
            _ => ", the schedule",
        }
    );
    // Arguments and outputs, live throughout: drawn over the live bytes
    // below.
    // The live bytes: an area under a step line.
    if steps > 0 {
        let mut points = format!("{CHART_LEFT:.1},{CHART_BOTTOM:.1}");
        for (k, t) in a.timeline.iter().enumerate() {
            let _ = write!(points, " {:.1},{:.1}", x(k), y(t.live));
        }
        let _ = write!(points, " {:.1},{CHART_BOTTOM:.1}", x(steps - 1));
        let _ = writeln!(
            s,
            r##"<polygon class="live" points="{points}" fill="#fdd0a2" stroke="#d94801" stroke-width="1"/>"##
        );
    }
    if base > 0 {
        let _ = writeln!(
            s,
            r##"<rect class="base" x="{CHART_LEFT}" y="{:.1}" width="{}" height="{:.1}" fill="#9ecae1"><title>arguments and outputs: {}</title></rect>"##,
            y(base),
            CHART_RIGHT - CHART_LEFT,
            CHART_BOTTOM - y(base),
            short(base)
        );
    }
    // The legend.
    let _ = writeln!(
        s,
        r##"<g class="legend"><rect x="{CHART_LEFT}" y="56" width="12" height="12" fill="#9ecae1"/><text x="{}" y="66">arguments and outputs (live throughout)</text><rect x="{}" y="56" width="12" height="12" fill="#fdd0a2" stroke="#d94801"/><text x="{}" y="66">temporaries live</text><line x1="{}" y1="62" x2="{}" y2="62" stroke="#cb181d" stroke-dasharray="6,4"/><text x="{}" y="66">peak: what must fit (the block of temporaries whole)</text></g>"##,
        CHART_LEFT + 16.0,
        CHART_LEFT + 280.0,
        CHART_LEFT + 296.0,
        CHART_LEFT + 420.0,
        CHART_LEFT + 444.0,
        CHART_LEFT + 450.0
    );
    // What must fit: the peak, fragmentation of the block included.
    let yy = y(a.peak());
    let _ = writeln!(
        s,
        r##"<g class="peak-level"><line x1="{CHART_LEFT}" y1="{yy:.1}" x2="{CHART_RIGHT}" y2="{yy:.1}" stroke="#cb181d" stroke-dasharray="6,4"/><text x="{}" y="{:.1}" text-anchor="end" fill="#cb181d">peak {}</text></g>"##,
        CHART_RIGHT,
        yy - 5.0,
        short(a.peak()),
    );
    if let Some(k) = a.peak_step() {
        let t = &a.timeline[k];
        let xx = x(k);
        let anchor = if xx > (CHART_LEFT + CHART_RIGHT) / 2.0 {
            "end"
        } else {
            "start"
        };
        let dx = if anchor == "end" { -6.0 } else { 6.0 };
        let _ = writeln!(
            s,
            r##"<g class="peak-step" data-step="{k}"><line x1="{xx:.1}" y1="{CHART_TOP}" x2="{xx:.1}" y2="{CHART_BOTTOM}" stroke="#cb181d"/><circle cx="{xx:.1}" cy="{:.1}" r="4" fill="#cb181d"/><text x="{:.1}" y="{}" text-anchor="{anchor}" fill="#cb181d">most live: {} at {}</text></g>"##,
            y(t.live),
            xx + dx,
            CHART_TOP + 30.0,
            short(t.live),
            escape(&t.instruction)
        );
    }
    // The largest buffers live at the peak.
    let _ = writeln!(
        s,
        r#"<text x="10" y="{}" font-weight="bold">largest buffers live at the peak ({} of {})</text>"#,
        BAR_TOP,
        shown.len(),
        a.peak_buffers.len()
    );
    let largest = shown.first().map_or(1, |b| b.bytes.max(1)) as f64;
    for (k, b) in shown.iter().enumerate() {
        let yy = BAR_TOP + 12.0 + BAR_HEIGHT * k as f64;
        let w = 200.0 * (b.bytes.max(0) as f64 / largest);
        let fill = match b.kind {
            memory::AllocationKind::Parameter | memory::AllocationKind::Output => "#9ecae1",
            _ => "#fdae6b",
        };
        let label = format!(
            "{} {} {} ({})",
            short(b.bytes),
            buffer_name(b),
            b.shape,
            b.kind.as_str()
        );
        let _ = writeln!(
            s,
            r##"<g class="buffer" data-bytes="{}"><rect x="10" y="{yy:.1}" width="{w:.1}" height="{}" fill="{fill}"/><text x="220" y="{:.1}">{}</text></g>"##,
            b.bytes,
            BAR_HEIGHT - 4.0,
            yy + BAR_HEIGHT - 9.0,
            escape(&cut(&label, 110))
        );
    }
    s.push_str("</svg>\n");
    s
}

/// The bytes at which the picture's scale is marked: steps of 1, 2 or 5
/// (times a power of ten) of the unit that `top` is written in, up to
/// `top`.
fn ticks(top: i64) -> Vec<i64> {
    let top = top.max(1);
    let mut unit = 1i64;
    while unit <= i64::MAX / 1024 && top / unit >= 1024 {
        unit *= 1024;
    }
    let span = top as f64 / unit as f64;
    let raw = span / 4.0;
    let magnitude = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * magnitude)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * magnitude);
    let step = ((step * unit as f64) as i64).max(1);
    (0..)
        .map(|k| k * step)
        .take_while(|&v| v <= top)
        .take(12)
        .collect()
}
