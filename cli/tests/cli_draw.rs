//! `xla-shape draw`: the SVG parses as XML and has one labelled cell per
//! element of the drawn region, with the offset `TiledLayout` gives; the
//! figures of XLA's tiled-layout document (docs/tiled_layout.md) come out
//! as the document draws them.

mod support;

use std::collections::BTreeMap;

use support::*;
use xla_shape::Shape;
use xla_shape::tiling::TiledLayout;

/// What a picture shows: element cells (index -> offset, as labelled),
/// padding cells, tile outlines and the summary line.
struct Picture {
    cells: BTreeMap<Vec<i64>, i64>,
    padding: Vec<Vec<i64>>,
    tiles: usize,
    summary: String,
}

fn index_of(text: &str) -> Vec<i64> {
    // A scalar's index is empty.
    text.split(',')
        .filter(|i| !i.is_empty())
        .map(|i| i.parse().unwrap())
        .collect()
}

fn picture(svg: &str) -> Picture {
    let doc = roxmltree::Document::parse(svg).expect("the SVG is well-formed XML");
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "svg");
    assert_eq!(
        root.tag_name().namespace(),
        Some("http://www.w3.org/2000/svg")
    );
    let mut p = Picture {
        cells: BTreeMap::new(),
        padding: Vec::new(),
        tiles: 0,
        summary: String::new(),
    };
    for node in doc.descendants().filter(|n| n.is_element()) {
        match node.attribute("class") {
            Some("cell") => {
                let index = index_of(node.attribute("data-index").unwrap());
                let offset: i64 = node.attribute("data-offset").unwrap().parse().unwrap();
                let label: String = node
                    .descendants()
                    .filter(|n| n.is_text())
                    .map(|n| n.text().unwrap())
                    .collect();
                assert_eq!(label, offset.to_string(), "the cell is labelled");
                assert!(p.cells.insert(index, offset).is_none(), "one cell each");
            }
            Some("padding") => p
                .padding
                .push(index_of(node.attribute("data-index").unwrap())),
            Some("tile") => p.tiles += 1,
            Some("summary") => p.summary = node.text().unwrap().to_string(),
            _ => {}
        }
    }
    p
}

fn draw(args: &[&str]) -> Picture {
    let mut all = vec!["draw"];
    all.extend_from_slice(args);
    picture(&ok(&all, b""))
}

fn tiled(shape: &str) -> TiledLayout {
    match shape.parse::<Shape>().unwrap() {
        Shape::Array(a) => TiledLayout::new(&a).unwrap(),
        _ => unreachable!(),
    }
}

/// Every cell's offset is `TiledLayout`'s.
fn offsets_agree(shape: &str, p: &Picture) {
    let t = tiled(shape);
    for (index, &offset) in &p.cells {
        assert_eq!(t.offset(index).unwrap(), offset, "{shape} at {index:?}");
    }
}

#[test]
fn figure_1_t2x2() {
    // Figure 1 of the document, F32[3,5]{1,0:T(2,2)}: the memory order is
    // (0,0) (0,1) (1,0) (1,1) (0,2) (0,3) (1,2) (1,3) (0,4) _ (1,4) _ |
    // (2,0) (2,1) _ _ (2,2) (2,3) _ _ (2,4) _ _ _  — 24 slots, 9 padding.
    let memory_order = [
        "0,0", "0,1", "1,0", "1,1", "0,2", "0,3", "1,2", "1,3", "0,4", "_", "1,4", "_", "2,0",
        "2,1", "_", "_", "2,2", "2,3", "_", "_", "2,4", "_", "_", "_",
    ];
    let shape = "f32[3,5]{1,0:T(2,2)}";
    let p = draw(&[shape]);
    assert_eq!(p.cells.len(), 15);
    assert_eq!(p.padding.len(), 24 - 15);
    for (slot, at) in memory_order.iter().enumerate() {
        if *at != "_" {
            assert_eq!(p.cells[&index_of(at)], slot as i64, "{at}");
        }
    }
    // Padding: row 3 (tiles of 2 rows) and column 5 (tiles of 2 columns).
    for index in &p.padding {
        assert!(index[0] == 3 || index[1] == 5, "{index:?}");
    }
    // 2 x 3 tiles of 2 x 2, all drawn.
    assert_eq!(p.tiles, 6);
    assert!(!p.summary.contains("more"), "{}", p.summary);
}

#[test]
fn figure_2_t2x4_t2x1() {
    // Figure 2 of the document, F32[4,8]{1,0:T(2,4)(2,1)}.
    let table = [
        [0, 2, 4, 6, 8, 10, 12, 14],
        [1, 3, 5, 7, 9, 11, 13, 15],
        [16, 18, 20, 22, 24, 26, 28, 30],
        [17, 19, 21, 23, 25, 27, 29, 31],
    ];
    let p = draw(&["f32[4,8]{1,0:T(2,4)(2,1)}"]);
    assert_eq!(p.cells.len(), 32);
    assert!(p.padding.is_empty());
    assert_eq!(p.tiles, 4);
    for (r, row) in table.iter().enumerate() {
        for (c, &offset) in row.iter().enumerate() {
            assert_eq!(p.cells[&vec![r as i64, c as i64]], offset);
        }
    }
}

#[test]
fn large_arrays_draw_the_first_tiles_and_count_the_rest() {
    // bf16[16,256] with T(8,128)(2,1): 2 x 2 tiles; 16 columns of the
    // first column of tiles are drawn, so 2 tiles in part, 2 not at all.
    let shape = "bf16[16,256]{1,0:T(8,128)(2,1)}";
    let p = draw(&[shape]);
    assert_eq!(p.cells.len(), 16 * 16);
    offsets_agree(shape, &p);
    assert!(p.summary.contains("2 of 4 tiles"), "{}", p.summary);
    assert!(p.summary.contains("2 more not drawn"), "{}", p.summary);
    // The (2,1) tile puts rows 0 and 1 of a column side by side in memory.
    assert_eq!(p.cells[&vec![0, 0]], 0);
    assert_eq!(p.cells[&vec![1, 0]], 1);
    assert_eq!(p.cells[&vec![0, 1]], 2);
    // A wider limit takes whole tiles where they fit.
    let p = draw(&["--max-rows", "20", "--max-cols", "300", shape]);
    assert_eq!(p.cells.len(), 16 * 256);
    assert!(!p.summary.contains("more"), "{}", p.summary);
    // An untiled array is cut at the limits.
    let p = draw(&["--max-rows", "3", "--max-cols", "4", "s32[1000,1000]"]);
    let drawn: Vec<Vec<i64>> = p.cells.keys().cloned().collect();
    let expected: Vec<Vec<i64>> = (0..3)
        .flat_map(|r| (0..4).map(move |c| vec![r, c]))
        .collect();
    assert_eq!(drawn, expected);
    offsets_agree("s32[1000,1000]", &p);
    assert!(p.summary.contains("rows 0-2 of 1000"), "{}", p.summary);
}

#[test]
fn every_element_of_small_arrays_gets_its_cell() {
    for (shape, slice) in [
        ("f32[5]{0:T(4)}", None),
        ("f32[2,3,5]{0,2,1:T(2,2)}", Some("1,:,:")),
        ("f32[2,3,5]{2,1,0}", Some(":,1,:")),
        ("s8[3,7]{0,1:T(2,4)}", None),
        ("f32[<=3,5]{1,0:T(2,2)}", None),
        ("pred[6,5]{1,0:T(4,4)(2,1)}", None),
        ("f32[]", None),
    ] {
        let mut args = vec![shape];
        if let Some(s) = slice {
            args.extend(["--slice", s]);
        }
        let p = draw(&args);
        offsets_agree(shape, &p);
        // The drawn region: the dimensions marked ':' over their whole
        // (bounded) size, the others at their fixed index.
        let t = tiled(shape);
        let dims = t.dimensions();
        let fixed: Vec<Option<i64>> = match slice {
            Some(s) => s.split(',').map(|x| x.parse().ok()).collect(),
            None => (0..dims.len())
                .map(|d| if d + 2 >= dims.len() { None } else { Some(0) })
                .collect(),
        };
        let mut expected = vec![Vec::new()];
        for (d, f) in fixed.iter().enumerate() {
            let values: Vec<i64> = match f {
                Some(i) => vec![*i],
                None => (0..dims[d]).collect(),
            };
            expected = expected
                .iter()
                .flat_map(|prefix| {
                    values.iter().map(move |&v| {
                        let mut i = prefix.clone();
                        i.push(v);
                        i
                    })
                })
                .collect();
        }
        let drawn: Vec<Vec<i64>> = p.cells.keys().cloned().collect();
        expected.sort();
        assert_eq!(drawn, expected, "{shape}");
        for index in &p.padding {
            assert!(
                index.iter().zip(dims).any(|(&i, &d)| i >= d),
                "{shape}: padding {index:?} is outside the array"
            );
        }
    }
}

#[test]
fn wrapped_1d_arrays_show_every_element_and_the_padding() {
    // 96 elements in tiles of 64: 128 slots, 32 of them padding; the (2,1)
    // tile after (16) puts element i + 16 right after element i
    // (XLA's 1-D interleaved layout, ShapeUtil::PackedFactorFor1DInterleavedArray).
    let shape = "bf16[96]{0:T(64)(16)(2,1)}";
    let p = draw(&["--wrap", "16", shape]);
    assert_eq!(p.cells.len(), 96);
    assert_eq!(p.padding.len(), 128 - 96);
    offsets_agree(shape, &p);
    assert_eq!(p.cells[&vec![16]], p.cells[&vec![0]] + 1);
    assert_eq!(p.tiles, 2);
    // The row limit cuts a long array.
    let p = draw(&["--wrap", "8", "--max-rows", "2", "s32[100]"]);
    let drawn: Vec<Vec<i64>> = p.cells.keys().cloned().collect();
    assert_eq!(drawn, (0..16).map(|i| vec![i]).collect::<Vec<_>>());
    assert!(p.summary.contains("elements 0-15 of 100"), "{}", p.summary);
    // Only 1-D arrays wrap.
    let doc = json_doc(&["draw", "--json", "--wrap", "4", "f32[2,3]"], b"", 1);
    assert_eq!(doc["error"]["kind"], "InvalidArgument");
    fails(&["draw", "--wrap", "0", "f32[8]"], b"", 2);
}

#[test]
fn draw_errors_in_both_modes() {
    for (args, code, kind) in [
        (&["draw", "(f32[2], f32[3])"][..], 1, "InvalidArgument"),
        (&["draw", "f32[?,3]"][..], 1, "InvalidArgument"),
        (
            &["draw", "--slice", "0,0,:", "f32[2,3]"][..],
            1,
            "InvalidArgument",
        ),
        (&["draw", "--slice", "0,:,:", "f32[2,3,4]"][..], 0, ""),
        (
            &["draw", "--slice", "5,:,:", "f32[2,3,4]"][..],
            1,
            "InvalidArgument",
        ),
        (
            &["draw", "--slice", "0,0,0", "f32[2,3,4]"][..],
            1,
            "InvalidArgument",
        ),
        (
            &["draw", "--slice", ":,:,:", "f32[2,3,4]"][..],
            1,
            "InvalidArgument",
        ),
        (&["draw", "f32[2,3"][..], 1, "Parse"),
        (&["draw", "--max-rows", "0", "f32[2]"][..], 2, "Usage"),
    ] {
        if code == 0 {
            picture(&ok(args, b""));
            continue;
        }
        let err = fails(args, b"", code);
        assert!(err.starts_with("xla-shape: "), "{args:?}: {err}");
        let mut with_json = args.to_vec();
        with_json.push("--json");
        let doc = json_doc(&with_json, b"", code);
        assert_eq!(doc["error"]["kind"], kind, "{args:?}");
    }
}

#[test]
fn the_picture_does_not_depend_on_the_input_form() {
    let shape = "f32[3,5]{1,0:T(2,2)}";
    let hex = ok(&["convert", "--to", "hex", shape], b"");
    let literal = ok(&["draw", shape], b"");
    assert_eq!(ok(&["draw", hex.trim()], b""), literal);
    assert_eq!(ok(&["draw"], shape.as_bytes()), literal);
}

#[test]
fn index_labels_of_a_huge_rank_are_held_to_a_budget() {
    // Rank 200,002 (400 KB of text), the last two dimensions 16 x 16:
    // each cell's `data-index` is the whole index, 400 KB, and 256 of
    // them made a 107 MB picture (rank 1,200,002 ran out of memory). The
    // cells drawn are now as many as 16 MiB of labels allow.
    let shape = format!("f32[{}16,16]", "1,".repeat(200_000));
    let svg = ok(&["draw", "-"], shape.as_bytes());
    assert!(
        svg.len() <= (17 << 20) + 8 * shape.len(),
        "{} bytes for {} input bytes",
        svg.len(),
        shape.len()
    );
    let cells = svg.matches(r#"<g class="cell""#).count();
    assert!((1..256).contains(&cells), "{cells} cells");
    assert!(
        svg.contains("Drawn: rows 0-"),
        "the caption says what is drawn"
    );
}
