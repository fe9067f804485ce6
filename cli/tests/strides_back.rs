//! `strides --element-strides` / `--byte-strides`: from strides back to a
//! layout. Expected layouts are derived from NumPy's definition of strides
//! (a C-ordered `(2, 3)` float32 array has byte strides `(12, 4)`, a
//! Fortran-ordered one `(4, 8)`) and XLA's minor_to_major (the dimension of
//! the smallest stride first).

mod support;

use support::{fails, json_doc, ok};

#[test]
fn byte_strides_give_the_layout_back() {
    let c = ok(&["strides", "f32[2,3]", "--byte-strides", "12,4"], b"");
    assert_eq!(
        c,
        "shape:           f32[2,3]{1,0}\nelement strides: [3, 1]\nbyte strides:    [12, 4]\n"
    );
    let f = json_doc(
        &["strides", "--json", "f32[2,3]", "--byte-strides", "4,8"],
        b"",
        0,
    );
    assert_eq!(f["shape"], "f32[2,3]{0,1}");
    assert_eq!(f["byte_strides"], serde_json::json!([4, 8]));
    // The strides replace whatever layout the input had.
    let e = ok(
        &["strides", "f32[2,3]{1,0}", "--element-strides", "1,2"],
        b"",
    );
    assert!(e.starts_with("shape:           f32[2,3]{0,1}\n"), "{e}");
    // A 3-d array, dimension 1 most minor, then 0, then 2.
    let d = json_doc(
        &[
            "strides",
            "--json",
            "s8[2,3,4]",
            "--element-strides",
            "3,1,6",
        ],
        b"",
        0,
    );
    assert_eq!(d["shape"], "s8[2,3,4]{1,0,2}");
}

#[test]
fn strides_without_a_layout_say_why() {
    // A gap after each row of 3: no packed layout has these strides.
    let err = fails(&["strides", "f32[2,3]", "--element-strides", "5,1"], b"", 1);
    let expected = xla_shape::strides::layout_from_strides(&[2, 3], &[5, 1]).unwrap_err();
    assert!(err.contains(expected.message()), "{err}");
    let err = fails(&["strides", "f32[2,3]", "--byte-strides", "6,2"], b"", 1);
    assert!(
        err.contains("not a multiple of the 4-byte element size"),
        "{err}"
    );
    // Both at once is a usage error.
    fails(
        &[
            "strides",
            "f32[2]",
            "--byte-strides",
            "4",
            "--element-strides",
            "1",
        ],
        b"",
        2,
    );
}
