//! `docs/xla-mapping.md` and the crate's `#[doc(alias = "ShapeUtil::…")]`
//! attributes (and those of `LayoutUtil`, `IndexUtil`, `primitive_util`,
//! and jaxlib's `xla_client.Shape.leaf_count` and the like)
//! name the same upstream functions for the same Rust items.
//!
//! Both sides are read as text. An alias is the string in `alias = "…"`;
//! its item is the next `fn`, `struct`, `enum`, `trait`, `type` or `const`
//! declared after it. In the mapping, a table row names upstream functions
//! in backticks in its first column (with the `## ShapeUtil`-style section
//! giving the class unless the name carries one) and Rust items in
//! backticks in its second; a second column that starts with `none` or
//! `crate-internal` has no Rust counterpart.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The upstream classes whose functions the mapping lists.
const CLASSES: [&str; 4] = ["primitive_util", "ShapeUtil", "LayoutUtil", "IndexUtil"];

/// The jaxlib classes (`xla_client.Shape` and so on) whose methods the
/// mapping lists: an alias `xla_client.Shape.array_shape` names class
/// `xla_client.Shape`, function `array_shape`.
const JAXLIB_CLASSES: [&str; 3] = [
    "xla_client.Shape",
    "xla_client.Layout",
    "xla_client.ProgramShape",
];

/// The `(class, function)` an alias or a mapping span names, if it is one
/// of an upstream class the mapping lists.
fn class_function(name: &str) -> Option<(&str, &str)> {
    if let Some((class, function)) = name.rsplit_once('.')
        && JAXLIB_CLASSES.contains(&class)
    {
        return Some((class, function));
    }
    name.split_once("::")
        .filter(|(class, _)| CLASSES.contains(class))
}

/// `(class, function)` -> the Rust item names.
type Names = BTreeMap<(String, String), BTreeSet<String>>;

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src is readable") {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The identifier at the start of `s` (letters, digits, `_`).
fn leading_ident(s: &str) -> &str {
    let end = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    &s[..end]
}

/// The name declared on `line`, if it declares an item.
fn declared_item(line: &str) -> Option<String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = words.iter().position(|w| {
        matches!(
            *w,
            "fn" | "struct" | "enum" | "trait" | "type" | "const" | "static"
        )
    })?;
    // `const fn name`: the name follows the last keyword.
    let at = if words.get(at + 1) == Some(&"fn") {
        at + 1
    } else {
        at
    };
    let name = leading_ident(words.get(at + 1)?);
    (!name.is_empty()).then(|| name.to_string())
}

/// Every `class::Function` alias in `src/` with the items that carry it.
fn source_aliases() -> Names {
    let mut files = Vec::new();
    rust_files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut files,
    );
    let mut aliases = Names::new();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("source is readable");
        let mut pending: Vec<(String, String)> = Vec::new();
        // rustfmt breaks a long `#[doc(alias = ..)]` over lines: join them.
        let mut joined = Vec::new();
        let mut open: Option<String> = None;
        for line in text.lines() {
            let line = line.trim();
            match open.as_mut() {
                Some(attr) => attr.push_str(line),
                None if line.starts_with("#[doc(") => open = Some(line.to_string()),
                None => joined.push(line.to_string()),
            }
            if open.as_ref().is_some_and(|attr| attr.ends_with(")]")) {
                joined.extend(open.take());
            }
        }
        for line in &joined {
            let line = line.as_str();
            if line.starts_with("#[doc(") && line.contains("alias") {
                for part in line.split("alias = \"").skip(1) {
                    let alias = &part[..part.find('"').expect("closing quote")];
                    if let Some((class, function)) = class_function(alias) {
                        pending.push((class.to_string(), function.to_string()));
                    }
                }
            } else if !pending.is_empty()
                && !line.starts_with("#[")
                && !line.starts_with("///")
                && let Some(item) = declared_item(line)
            {
                for key in pending.drain(..) {
                    aliases.entry(key).or_default().insert(item.clone());
                }
            }
        }
        assert!(
            pending.is_empty(),
            "{}: alias without an item",
            file.display()
        );
    }
    aliases
}

/// The backticked spans of `s`.
fn backticked(s: &str) -> impl Iterator<Item = &str> {
    s.split('`').skip(1).step_by(2)
}

/// The mapping's rows with a Rust counterpart, and the upstream functions
/// it lists without one.
fn mapping() -> (Names, BTreeSet<(String, String)>) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/xla-mapping.md");
    let text = std::fs::read_to_string(path).expect("docs/xla-mapping.md is readable");
    let mut names = Names::new();
    let mut without = BTreeSet::new();
    let mut class = None;
    for line in text.lines() {
        if let Some(title) = line.strip_prefix("## ") {
            class = CLASSES
                .into_iter()
                .chain(["jaxlib"])
                .find(|c| leading_ident(title) == *c);
            continue;
        }
        let Some(class) = class else { continue };
        let cells: Vec<&str> = line.split(" | ").collect();
        if !line.starts_with("| `") || cells.len() != 2 {
            continue;
        }
        let (xla, rust) = (cells[0], cells[1]);
        let none = rust.starts_with("none") || rust.starts_with("crate-internal");
        let items: BTreeSet<String> = backticked(rust)
            .flat_map(|span| span.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')))
            .filter(|word| !word.is_empty())
            .map(str::to_string)
            .collect();
        for span in backticked(xla) {
            let (row_class, function) = match class_function(span) {
                Some(named) => named,
                // `Shape::Equal` and the like: a method of a model type.
                None if span.contains("::") || class == "jaxlib" => continue,
                None => (class, span),
            };
            let key = (row_class.to_string(), leading_ident(function).to_string());
            if none {
                without.insert(key);
            } else {
                names.entry(key).or_default().extend(items.iter().cloned());
            }
        }
    }
    (names, without)
}

#[test]
fn every_alias_is_in_the_mapping_on_its_item() {
    let (mapped, without) = mapping();
    let mut wrong = Vec::new();
    for ((class, function), items) in source_aliases() {
        let key = (class.clone(), function.clone());
        for item in items {
            match mapped.get(&key) {
                Some(listed) if listed.contains(&item) => {}
                Some(listed) => wrong.push(format!(
                    "{class}::{function} is an alias of `{item}`; the mapping lists {listed:?}"
                )),
                None if without.contains(&key) => wrong.push(format!(
                    "{class}::{function} is an alias of `{item}`; the mapping says it has none"
                )),
                None => wrong.push(format!(
                    "{class}::{function} is an alias of `{item}`; the mapping lacks it"
                )),
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn every_mapped_function_is_an_alias_of_a_listed_item() {
    let aliases = source_aliases();
    let (mapped, _) = mapping();
    assert!(
        mapped.len() > 200,
        "the mapping parsed to {} names",
        mapped.len()
    );
    let jaxlib = mapped
        .keys()
        .filter(|(class, _)| JAXLIB_CLASSES.contains(&class.as_str()))
        .count();
    assert!(jaxlib >= 10, "the jaxlib section parsed to {jaxlib} names");
    let mut missing = Vec::new();
    for ((class, function), items) in &mapped {
        let carried = aliases.get(&(class.clone(), function.clone()));
        if !carried.is_some_and(|c| c.iter().any(|item| items.contains(item))) {
            missing.push(format!(
                "{class}::{function}: no alias on any of {items:?} (aliases: {carried:?})"
            ));
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}
