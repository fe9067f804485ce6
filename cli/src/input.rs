//! Reading INPUT arguments and the numbers of `index`.

use std::io::{self, Read};

/// The bytes of an INPUT: the argument itself, the file after `@`, or
/// standard input when absent or `-`.
pub fn read(arg: Option<&str>) -> io::Result<Vec<u8>> {
    match arg {
        None | Some("-") => {
            let mut bytes = Vec::new();
            io::stdin().lock().read_to_end(&mut bytes)?;
            Ok(bytes)
        }
        Some(arg) => match arg.strip_prefix('@') {
            Some(path) => {
                std::fs::read(path).map_err(|e| io::Error::new(e.kind(), format!("{path}: {e}")))
            }
            None => Ok(arg.as_bytes().to_vec()),
        },
    }
}

/// An element index written `i,j,k` (spaces allowed; an empty line is the
/// index of a scalar).
pub fn parse_index(line: &str) -> Result<Vec<i64>, String> {
    let line = line.trim();
    if line.is_empty() {
        return Ok(Vec::new());
    }
    line.split(',')
        .map(|part| {
            let part = part.trim();
            part.parse::<i64>()
                .map_err(|_| format!("not an index: {part:?} in {line:?}"))
        })
        .collect()
}

/// An element offset.
pub fn parse_offset(line: &str) -> Result<i64, String> {
    let line = line.trim();
    line.parse::<i64>()
        .map_err(|_| format!("not an offset: {line:?}"))
}
