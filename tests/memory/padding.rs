//! Padding explained, against XLA's own out-of-memory listings: the
//! listings users posted in public threads (`tests/data/listings/`, each
//! file named after its thread, see `tests/data/README.md`). Every figure
//! a listing prints for a shape (its size, unpadded size, extra memory and
//! expansion) must come out the same, printed as XLA prints it.

use crate::common;

use xla_shape::Shape;
use xla_shape::memory::{
    self, Cause, Change, ListingFormat, Padding, PaddingEntry, PaddingOptions,
};
use xla_shape::tiling::RoundedPart;

fn listing(file: &str) -> String {
    std::fs::read_to_string(common::data_path(&format!("listings/{file}")))
        .unwrap_or_else(|e| panic!("{file}: {e}"))
}

fn options(tiles: &[&str]) -> PaddingOptions {
    tiles
        .iter()
        .fold(PaddingOptions::new(), |o, t| o.with_tiles_text(t).unwrap())
}

/// A listing, every shape explained: (entries, those with a shape).
fn read<'a>(text: &'a str, tiles: &[&str]) -> Vec<PaddingEntry<'a>> {
    memory::padding(text, &options(tiles)).unwrap()
}

fn explained<'e>(entry: &'e PaddingEntry<'_>) -> &'e Padding {
    entry
        .explanation
        .as_ref()
        .unwrap_or_else(|| panic!("{entry:?} has a shape"))
        .as_ref()
        .unwrap_or_else(|e| panic!("{:?}: {e}", entry.shape))
}

/// The listings, the tiles to assume for them, how many entries each has
/// and how many of them have a shape.
const LISTINGS: &[(&str, &[&str], usize, usize)] = &[
    ("jax-ml_jax_7502.txt", &[], 1, 1),
    // Printed before XLA:TPU's shapes carried their tiles: f32 arrays are
    // tiled (8,128).
    ("tensorflow_tensorflow_30803.txt", &["f32=(8,128)"], 2, 2),
    ("pytorch_xla_6674.txt", &[], 2, 2),
    // vmem: an allocation without a shape (register spill slots), and an
    // f32 array printed without its tiles.
    ("pytorch_xla_7942.txt", &["(8,128)"], 2, 1),
    ("DifferentiableUniverseInitiative_flowpm_27.txt", &[], 1, 1),
    ("sokrypton_ColabFold_62.txt", &[], 1, 1),
    ("google_trax_525.txt", &[], 2, 2),
    ("pytorch_xla_1965.txt", &[], 2, 2),
    ("salesforce_ctrl_38.txt", &[], 1, 1),
    ("erfanzar_EasyDeL_166.txt", &[], 1, 1),
    // bf16 printed without tiles, with none to pad: the same either way.
    ("tensorflow_tensor2tensor_1382.txt", &[], 1, 1),
    (
        "tensorflow_tensor2tensor_1382.txt",
        &["bf16=(8,128)(2,1)"],
        1,
        1,
    ),
    ("pytorch_xla_3041.txt", &[], 2, 2),
    ("google_trax_1343.txt", &[], 2, 2),
    ("jax-ml_jax_13428.txt", &[], 2, 2),
    // XLA:GPU's shapes are never tiled, whatever is assumed.
    ("jax-ml_jax_13428.txt", &["(8,128)"], 2, 2),
    ("google-research_t5x_870.txt", &[], 3, 3),
    ("alpa-projects_alpa_759.txt", &[], 1, 1),
];

#[test]
fn every_figure_of_every_listing_comes_out_the_same() {
    let mut figures = 0;
    for &(file, tiles, count, with_shape) in LISTINGS {
        let text = listing(file);
        let entries = read(&text, tiles);
        assert_eq!(entries.len(), count, "{file}");
        assert_eq!(
            entries.iter().filter(|e| e.shape.is_some()).count(),
            with_shape,
            "{file}"
        );
        for entry in entries.iter().filter(|e| e.shape.is_some()) {
            explained(entry);
            let check = entry.check().unwrap();
            assert_eq!(
                check.agrees(),
                Some(true),
                "{file}: {:?}: {check:?}",
                entry.shape
            );
            figures += [&check.size, &check.unpadded, &check.extra, &check.expansion]
                .iter()
                .filter(|f| f.is_some())
                .count();
        }
    }
    // 4 figures each where the listing prints them all; 70 in all (counted
    // by hand from the files).
    assert_eq!(figures, 70);
}

#[test]
fn a_listing_without_tiles_disagrees_until_they_are_given() {
    // tensorflow/tensorflow#30803: `f32[32,128,32,64]{3,0,2,1}` is 64.00M
    // on the TPU; without its tiles the crate finds no padding.
    let text = listing("tensorflow_tensorflow_30803.txt");
    let entries = read(&text, &[]);
    let check = entries[0].check().unwrap();
    assert_eq!(check.agrees(), Some(false));
    let size = check.size.unwrap();
    assert_eq!(
        (size.printed.as_str(), size.ours.as_str()),
        ("64.00M", "32.00M")
    );
    assert!(!explained(&entries[0]).tiles_assumed);
    let entries = read(&text, &["f32=(8,128)"]);
    let p = explained(&entries[0]);
    assert!(p.tiles_assumed);
    assert_eq!(p.shape.to_string(), "f32[32,128,32,64]{3,0,2,1:T(8,128)}");
    // Tiles for another type are not used.
    let entries = read(&text, &["bf16=(8,128)"]);
    assert_eq!(entries[0].check().unwrap().agrees(), Some(false));
}

/// The single cause of `entry`'s padding: (the part rounded, its size, what
/// it is rounded up to).
fn rounding(entry: &PaddingEntry<'_>) -> (RoundedPart, i64, i64) {
    let p = explained(entry);
    let [Cause::Rounding { rounding, .. }] = p.causes.as_slice() else {
        panic!("{:?}: {:?}", entry.shape, p.causes);
    };
    (rounding.part.clone(), rounding.size, rounding.rounded)
}

#[test]
fn the_dimension_to_blame() {
    let d = RoundedPart::Dimension;
    // (file, tiles, entry, (part, size, rounded up to)).
    type Case<'a> = (&'a str, &'a [&'a str], usize, (RoundedPart, i64, i64));
    let cases: &[Case] = &[
        // The minor-most dimension, 4, rounded up to 128: 32x.
        ("jax-ml_jax_7502.txt", &[], 0, (d(4), 4, 128)),
        (
            "DifferentiableUniverseInitiative_flowpm_27.txt",
            &[],
            0,
            (d(2), 4, 128),
        ),
        // The second-minor dimension, 1, rounded up to the tile's 4.
        ("pytorch_xla_6674.txt", &[], 0, (d(1), 1, 4)),
        ("pytorch_xla_1965.txt", &[], 0, (d(1), 1, 128)),
        ("sokrypton_ColabFold_62.txt", &[], 0, (d(1), 245, 256)),
        ("salesforce_ctrl_38.txt", &[], 0, (d(0), 246534, 246536)),
        ("pytorch_xla_3041.txt", &[], 1, (d(1), 1, 2)),
        (
            "tensorflow_tensorflow_30803.txt",
            &["f32=(8,128)"],
            0,
            (d(3), 64, 128),
        ),
        ("pytorch_xla_7942.txt", &["(8,128)"], 1, (d(1), 3, 128)),
    ];
    for (file, tiles, n, expected) in cases {
        let text = listing(file);
        let entries = read(&text, tiles);
        assert_eq!(&rounding(&entries[*n]), expected, "{file}");
    }
    // google/trax#525: no dimension rounds; pred takes 32 bits (E(32)).
    let text = listing("google_trax_525.txt");
    let entries = read(&text, &[]);
    let p = explained(&entries[0]);
    let [
        Cause::ElementSize {
            bits, type_bits, ..
        },
    ] = p.causes.as_slice()
    else {
        panic!("{:?}", p.causes);
    };
    assert_eq!((*bits, *type_bits), (32, 8));
    assert_eq!(p.causes[0].factor(), 4.0);
    // Nothing pads: no cause, no suggestion.
    let text = listing("erfanzar_EasyDeL_166.txt");
    let entries = read(&text, &[]);
    let p = explained(&entries[0]);
    assert!(p.causes.is_empty() && p.suggestions.is_empty());
}

#[test]
fn the_listings_fields_are_read() {
    let text = listing("jax-ml_jax_7502.txt");
    let entries = read(&text, &[]);
    let l = entries[0].listed.as_ref().unwrap();
    assert_eq!(l.format, ListingFormat::Tpu);
    assert_eq!(
        (l.memory_space, l.number, l.line),
        (Some("hbm"), Some(1), 16)
    );
    assert_eq!(l.allocation_type, Some("HLO temp"));
    assert_eq!(l.instruction(), Some("fusion.1"));
    assert!(l.operator.unwrap().starts_with("op_type=\"concatenate\""));
    // The buffer assignment's listing: the label is the opcode.
    let text = listing("jax-ml_jax_13428.txt");
    let entries = read(&text, &[]);
    let (a, b) = (
        entries[0].listed.as_ref().unwrap(),
        entries[1].listed.as_ref().unwrap(),
    );
    assert_eq!(a.format, ListingFormat::BufferAssignment);
    assert_eq!(
        (a.number, a.label, a.instruction()),
        (Some(1), Some("concatenate"), None)
    );
    assert_eq!(
        (b.number, b.entry_parameter, b.memory_space),
        (Some(2), true, None)
    );
    // Ray's prefix before every line.
    let text = listing("alpa-projects_alpa_759.txt");
    let entries = read(&text, &[]);
    let a = entries[0].listed.as_ref().unwrap();
    assert_eq!(
        (a.number, a.size, a.shape),
        (Some(1), Some("3.83GiB"), Some("f32[250880,4096]"))
    );
    // vmem: the spill slots have no shape.
    let text = listing("pytorch_xla_7942.txt");
    let entries = read(&text, &["(8,128)"]);
    let spill = &entries[0];
    assert!(spill.shape.is_none() && spill.explanation.is_none());
    let l = spill.listed.as_ref().unwrap();
    assert_eq!((l.memory_space, l.size), (Some("vmem"), Some("29.66M")));
}

/// The suggestions of an entry's shape, as text: `order S (P bytes)` or
/// `size dD=N (P bytes)`.
fn suggestions(p: &Padding) -> Vec<String> {
    p.suggestions
        .iter()
        .map(|s| match &s.change {
            Change::Order { transposed, .. } => format!("order {transposed} ({})", s.padded),
            Change::Size { dimension, size } => format!("size d{dimension}={size} ({})", s.padded),
            _ => unreachable!(),
        })
        .collect()
}

#[test]
fn suggestions_pad_less_under_the_same_tiles() {
    // flowpm#27: s32[8388608,8,4]{2,1,0:T(8,128)} is 32 GiB for 1 GiB of
    // data. With the 8,388,608 innermost and the 8 next (minor_to_major
    // {0,1,2}, the data transposed to [4,8,8388608]) nothing pads; or the
    // 4 could be 128 (32 GiB, all data) or not tiled at all.
    let text = listing("DifferentiableUniverseInitiative_flowpm_27.txt");
    let entries = read(&text, &[]);
    let p = explained(&entries[0]);
    assert_eq!(
        suggestions(p),
        [
            format!("order s32[4,8,8388608]{{2,1,0:T(8,128)}} ({})", 1i64 << 30),
            format!("size d2=128 ({})", 32i64 << 30),
        ]
    );
    // pytorch/xla#6674: the dimension of 1 in the tile's second place is
    // moved out: the nearest order swaps it with the 128 (one pair of
    // dimensions in another order), the data transposed to
    // [2048,1,128,2048].
    let text = listing("pytorch_xla_6674.txt");
    let entries = read(&text, &[]);
    let p = explained(&entries[0]);
    let Change::Order {
        minor_to_major,
        transposed,
    } = &p.suggestions[0].change
    else {
        panic!()
    };
    assert_eq!(
        (minor_to_major.as_slice(), p.suggestions[0].padded),
        (&[0, 3, 1, 2][..], 1 << 30)
    );
    assert_eq!(
        transposed.to_string(),
        "bf16[2048,1,128,2048]{3,2,1,0:T(4,128)(2,1)}"
    );
    // ColabFold#62: 245 rounded up to 256; the multiples of 128 around it
    // pad nothing: 128 x 64 x 1024 floats (32 MiB) and 256 (64 MiB).
    let text = listing("sokrypton_ColabFold_62.txt");
    let entries = read(&text, &[]);
    let p = explained(&entries[0]);
    let sizes: Vec<String> = suggestions(p)
        .into_iter()
        .filter(|s| s.starts_with("size"))
        .collect();
    assert_eq!(sizes, ["size d1=128 (33554432)", "size d1=256 (67108864)"]);
    for s in &p.suggestions {
        assert_eq!(s.padded, s.unpadded, "{s:?} pads nothing");
    }
}

#[test]
fn the_order_suggested_is_the_nearest_of_the_best() {
    // Every order of the four dimensions, the tiles kept: none pads less
    // than the one suggested, and none that pads as little is nearer.
    let shape: Shape = "bf16[2048,1,2048,128]{0,1,3,2:T(4,128)(2,1)}"
        .parse()
        .unwrap();
    let p = memory::explain_padding(&shape, &PaddingOptions::new()).unwrap();
    let Change::Order {
        minor_to_major: best,
        ..
    } = &p.suggestions[0].change
    else {
        panic!()
    };
    let best_bytes = &p.suggestions[0].padded;
    let current = [0i64, 1, 3, 2];
    let inversions = |order: &[i64]| {
        let pos = |d: i64| current.iter().position(|&x| x == d).unwrap();
        let p: Vec<usize> = order.iter().map(|&d| pos(d)).collect();
        (0..4)
            .flat_map(|i| (i + 1..4).map(move |j| (i, j)))
            .filter(|&(i, j)| p[i] > p[j])
            .count()
    };
    let mut orders = vec![];
    let mut perm = vec![0i64, 1, 2, 3];
    permutations(&mut perm, 0, &mut orders);
    assert_eq!(orders.len(), 24);
    for order in orders {
        let text = format!(
            "bf16[2048,1,2048,128]{{{}:T(4,128)(2,1)}}",
            order
                .iter()
                .map(i64::to_string)
                .collect::<Vec<_>>()
                .join(",")
        );
        let s: Shape = text.parse().unwrap();
        let q = memory::explain_padding(&s, &PaddingOptions::new()).unwrap();
        assert!(q.padded >= *best_bytes, "{text}");
        if q.padded == *best_bytes {
            assert!(inversions(&order) >= inversions(best), "{text} is nearer");
        }
    }
}

fn permutations(v: &mut Vec<i64>, k: usize, out: &mut Vec<Vec<i64>>) {
    if k == v.len() {
        out.push(v.clone());
        return;
    }
    for i in k..v.len() {
        v.swap(k, i);
        permutations(v, k + 1, out);
        v.swap(k, i);
    }
}

#[test]
fn a_shape_string_is_explained_alone() {
    let entries = read("  f32[3]{0:T(8,128)}\n", &[]);
    assert_eq!(entries.len(), 1);
    assert!(entries[0].listed.is_none() && entries[0].check().is_none());
    let p = explained(&entries[0]);
    // A tile longer than the rank sees a leading dimension of 1: 1 -> 8,
    // 3 -> 128, 12 bytes in 4096.
    assert_eq!((p.unpadded, p.padded), (12, 4096));
    let parts: Vec<_> = p
        .causes
        .iter()
        .map(|c| match c {
            Cause::Rounding { rounding, .. } => rounding.part.clone(),
            _ => panic!(),
        })
        .collect();
    assert_eq!(parts, [RoundedPart::Leading, RoundedPart::Dimension(0)]);
    // A tuple: its arrays, each cause with its index.
    let entries = read("(f32[3]{0:T(8)}, s8[2,2]{1,0:T(2,4)})", &[]);
    let p = explained(&entries[0]);
    assert_eq!((p.unpadded, p.padded), (12 + 4, 32 + 8));
    let indices: Vec<_> = p.causes.iter().map(|c| c.index().to_vec()).collect();
    assert_eq!(indices, [vec![0], vec![1]]);
    assert!(p.suggestions.is_empty());
    // Tail padding and an element size narrower than the type.
    let entries = read("s4[5]{0:L(8)E(4)}", &[]);
    let p = explained(&entries[0]);
    assert_eq!((p.unpadded, p.padded), (3, 4));
    assert!(matches!(
        p.causes.as_slice(),
        [Cause::TailPadding {
            alignment: 8,
            elements: 5,
            slots: 8,
            ..
        }]
    ));
}

#[test]
fn bad_input_is_an_error() {
    let o = PaddingOptions::new();
    // One line that is no shape: XLA's parse error.
    let err = memory::padding("f32[2,", &o).unwrap_err();
    assert!(err.to_string().contains("expects"), "{err}");
    // Lines without a listing.
    let err = memory::padding("hello\nworld\n", &o).unwrap_err();
    assert!(err.message().contains("neither a shape nor a log"), "{err}");
    assert!(memory::padding("", &o).is_err());
    // A listed shape that does not parse is an entry with its error; one
    // cut short says so.
    let entries = memory::padding("  1. Size: 4.0K\n     Shape: f32[2,\n", &o).unwrap();
    assert!(entries[0].explanation.as_ref().unwrap().is_err());
    let entries = memory::padding("     Shape: (f32[2]{0}, f32[...\n", &o).unwrap();
    let err = entries[0]
        .explanation
        .as_ref()
        .unwrap()
        .as_ref()
        .unwrap_err();
    assert!(err.message().contains("cut the shape short"), "{err}");
    // An unbounded dynamic dimension has no size.
    let entries = memory::padding("f32[?,3]", &o).unwrap();
    assert!(entries[0].explanation.as_ref().unwrap().is_err());
}
