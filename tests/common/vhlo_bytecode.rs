//! A StableHLO portable artifact of any size, written by hand in MLIR's
//! bytecode format (version 6, as jaxlib 0.10.2 writes it) for the bounds
//! and timings of the bytecode reader: `@main(%arg0: tensor<2xf32>)`, a
//! chain of `n` `vhlo.add_v1` operations each adding the previous result to
//! itself, and the return of the last. Every operation has its own
//! location (a name location), as jax's do.

/// A prefix varint (`BytecodeFormat.md`).
fn varint(out: &mut Vec<u8>, v: u64) {
    if v < 1 << 7 {
        out.push((v << 1 | 1) as u8);
        return;
    }
    for extra in 1..8u32 {
        if v < 1u64 << (7 * (extra + 1)) {
            let encoded = (v << (extra + 1)) | (1 << extra);
            out.extend_from_slice(&encoded.to_le_bytes()[..=extra as usize]);
            return;
        }
    }
    out.push(0);
    out.extend_from_slice(&v.to_le_bytes());
}

fn section(out: &mut Vec<u8>, id: u8, data: &[u8]) {
    out.push(id);
    varint(out, data.len() as u64);
    out.extend_from_slice(data);
}

/// The artifact with `n` additions.
pub fn chain_of_adds(n: usize) -> Vec<u8> {
    let strings: Vec<String> = [
        "builtin",
        "vhlo",
        "module",
        "func_v1",
        "add_v1",
        "return_v1",
        "main",
        "public",
        "x",
        "add",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let mut string_section = Vec::new();
    varint(&mut string_section, strings.len() as u64);
    for s in strings.iter().rev() {
        varint(&mut string_section, s.len() as u64 + 1);
    }
    for s in &strings {
        string_section.extend_from_slice(s.as_bytes());
        string_section.push(0);
    }
    // Dialects builtin (0) and vhlo (1), unversioned; operation names.
    let mut dialects = Vec::new();
    varint(&mut dialects, 2);
    varint(&mut dialects, 0 << 1);
    varint(&mut dialects, 1 << 1);
    varint(&mut dialects, 4);
    varint(&mut dialects, 0);
    varint(&mut dialects, 1);
    varint(&mut dialects, 2 << 1 | 1); // builtin.module
    varint(&mut dialects, 1);
    varint(&mut dialects, 3);
    for name in [3u64, 4, 5] {
        varint(&mut dialects, name << 1 | 1); // func_v1, add_v1, return_v1
    }
    // Attributes: builtin 0 unknown location, 1 string "x", 2 string "add",
    // 3 name location "x", 4 name location "add"; vhlo 5 "main", 6
    // "public", 7 [], 8 the function type.
    let builtin_attrs: Vec<Vec<u8>> = vec![
        vec![15 << 1 | 1],
        vec![2 << 1 | 1, 8 << 1 | 1],
        vec![2 << 1 | 1, 9 << 1 | 1],
        vec![14 << 1 | 1, 1 << 1 | 1, 1],
        vec![14 << 1 | 1, 2 << 1 | 1, 1],
    ];
    let vhlo_attrs: Vec<Vec<u8>> = vec![
        vec![14 << 1 | 1, 6 << 1 | 1],
        vec![14 << 1 | 1, 7 << 1 | 1],
        vec![1 << 1 | 1, 1],
        vec![17 << 1 | 1, 2 << 1 | 1],
    ];
    // Types (vhlo): 0 f32, 1 tensor<2xf32>, 2 (tensor<2xf32>) -> tensor<2xf32>.
    let types: Vec<Vec<u8>> = vec![
        vec![4 << 1 | 1],
        vec![20 << 1 | 1, 1 << 1 | 1, 4 << 1 | 1, 1],
        vec![8 << 1 | 1, 1 << 1 | 1, 1 << 1 | 1, 1 << 1 | 1, 1 << 1 | 1],
    ];
    let mut attr_type = Vec::new();
    let mut offsets = Vec::new();
    varint(&mut offsets, 9);
    varint(&mut offsets, 3);
    for (dialect, group) in [(0, &builtin_attrs), (1, &vhlo_attrs), (1, &types)] {
        varint(&mut offsets, dialect);
        varint(&mut offsets, group.len() as u64);
        for entry in group.iter() {
            varint(&mut offsets, (entry.len() as u64) << 1 | 1);
            attr_type.extend_from_slice(entry);
        }
    }
    // Properties: the function's (arg_attrs, function_type, res_attrs,
    // sym_name, sym_visibility).
    let mut properties = Vec::new();
    varint(&mut properties, 1);
    varint(&mut properties, 5);
    for a in [7u64, 8, 7, 5, 6] {
        varint(&mut properties, a);
    }
    // The function's body: one block, its argument, the additions, the
    // return.
    let mut body = Vec::new();
    varint(&mut body, 1);
    varint(&mut body, n as u64 + 1);
    varint(&mut body, ((n as u64 + 1) << 1) | 1);
    varint(&mut body, 1);
    varint(&mut body, 1 << 1 | 1); // tensor<2xf32> with a location
    varint(&mut body, 3);
    body.push(0);
    for i in 0..n as u64 {
        varint(&mut body, 2);
        body.push(0b0000_0110);
        varint(&mut body, 4);
        varint(&mut body, 1);
        varint(&mut body, 1);
        varint(&mut body, 2);
        varint(&mut body, i);
        varint(&mut body, i);
    }
    varint(&mut body, 3);
    body.push(0b0000_0100);
    varint(&mut body, 0);
    varint(&mut body, 1);
    varint(&mut body, n as u64);
    let mut function_region = Vec::new();
    varint(&mut function_region, 1);
    varint(&mut function_region, 0);
    varint(&mut function_region, 1 << 1);
    varint(&mut function_region, 1);
    function_region.push(0b0101_0000);
    varint(&mut function_region, 0);
    varint(&mut function_region, 0);
    varint(&mut function_region, 1 << 1 | 1);
    section(&mut function_region, 4, &body);
    let mut ir = Vec::new();
    varint(&mut ir, 1 << 1);
    varint(&mut ir, 0);
    ir.push(0b0001_0000);
    varint(&mut ir, 0);
    varint(&mut ir, 1 << 1 | 1);
    section(&mut ir, 4, &function_region);
    let mut out = b"ML\xefR".to_vec();
    varint(&mut out, 6);
    out.extend_from_slice(b"StableHLO_v1.15.0\0");
    section(&mut out, 0, &string_section);
    section(&mut out, 1, &dialects);
    section(&mut out, 2, &attr_type);
    section(&mut out, 3, &offsets);
    section(&mut out, 8, &properties);
    section(&mut out, 4, &ir);
    out
}

/// The artifact of at least `size` bytes (about 12 bytes an addition).
#[allow(dead_code)]
pub fn chain_of_adds_of_size(size: usize) -> Vec<u8> {
    chain_of_adds(size / 8 + 1)
}
