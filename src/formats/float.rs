//! Floating-point numbers as Google's Python runtime writes them: `repr`
//! of a double (`1e-05`, `1.0`, `1e+16`), and `ToShortestFloat` for
//! 32-bit floats.

use std::fmt::Write;

/// The value Python's `type_checkers.ToShortestFloat` gives a 32-bit float:
/// the double parsed from `'%.{p}g' % value` for the smallest precision `p`
/// from 6 up whose 32-bit rounding is the value again.
pub(crate) fn shortest_float(value: f32) -> f64 {
    if !value.is_finite() {
        return f64::from(value);
    }
    let wide = f64::from(value);
    // Nine significant digits always round-trip a 32-bit float.
    for precision in 6..=9 {
        // `{:.*e}` rounds correctly to `precision` significant digits, as
        // `%g` does; only the digits matter, not the notation.
        let text = format!("{:.*e}", precision - 1, wide);
        if let Ok(rounded) = text.parse::<f64>()
            && rounded as f32 == value
        {
            return rounded;
        }
    }
    wide
}

/// Python's `repr(float)` for a finite double: the shortest digits that
/// round-trip, in positional notation when the decimal exponent is in
/// `-4..16` (`0.0001`, `1000000000000000.0`), otherwise in exponent
/// notation with a signed exponent of at least two digits (`1e-05`,
/// `1.2345678901234568e+17`).
///
/// Non-finite values are written `inf`, `-inf` and `nan`, as `str()` does.
pub(crate) fn write_python_repr(out: &mut String, value: f64) {
    if value.is_nan() {
        out.push_str("nan");
        return;
    }
    if value.is_infinite() {
        out.push_str(if value > 0.0 { "inf" } else { "-inf" });
        return;
    }
    if value == 0.0 {
        out.push_str(if value.is_sign_negative() {
            "-0.0"
        } else {
            "0.0"
        });
        return;
    }
    // Rust's `{:e}` gives the shortest digits that round-trip, as Python's
    // repr does (`-1.2345e16`, `5e-324`). When two such strings are equally
    // close to the value, Python takes the correctly rounded one (ties to
    // even) and Rust may not: `-620981928693950.25` is `...950.2` in
    // Python. Rounding correctly to the same number of digits settles it.
    let shortest = format!("{value:e}");
    let digits = shortest
        .split_once('e')
        .map_or(shortest.as_str(), |(m, _)| m)
        .chars()
        .filter(char::is_ascii_digit)
        .count();
    let rounded = format!("{:.*e}", digits.saturating_sub(1), value);
    let sci = if rounded.parse::<f64>() == Ok(value) {
        rounded
    } else {
        shortest
    };
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let (negative, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => (true, m),
        None => (false, mantissa),
    };
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    if negative {
        out.push('-');
    }
    if !(-4..16).contains(&exponent) {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let sign = if exponent < 0 { '-' } else { '+' };
        let _ = write!(out, "e{sign}{:02}", exponent.unsigned_abs());
    } else if exponent >= 0 {
        let int_len = exponent as usize + 1;
        if digits.len() <= int_len {
            out.push_str(&digits);
            out.extend(std::iter::repeat_n('0', int_len - digits.len()));
            out.push_str(".0");
        } else {
            out.push_str(&digits[..int_len]);
            out.push('.');
            out.push_str(&digits[int_len..]);
        }
    } else {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-exponent - 1) as usize));
        out.push_str(&digits);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repr(v: f64) -> String {
        let mut s = String::new();
        write_python_repr(&mut s, v);
        s
    }

    #[test]
    fn python_repr_examples() {
        // Values and texts from CPython 3.11 `repr()`.
        assert_eq!(repr(1.0), "1.0");
        assert_eq!(repr(0.1), "0.1");
        assert_eq!(repr(1e-5), "1e-05");
        assert_eq!(repr(0.0001), "0.0001");
        assert_eq!(repr(1e16), "1e+16");
        assert_eq!(repr(1e15), "1000000000000000.0");
        assert_eq!(repr(1.2345678901234568e17), "1.2345678901234568e+17");
        assert_eq!(repr(5e-324), "5e-324");
        assert_eq!(repr(-0.0), "-0.0");
        assert_eq!(repr(-2.5), "-2.5");
        assert_eq!(repr(123.456), "123.456");
        assert_eq!(repr(f64::NEG_INFINITY), "-inf");
        // A tie between two shortest strings: Python rounds to even.
        // The value is exactly ...950.25 (the spacing of doubles there is
        // 1/8), so ...950.2 and ...950.3 are equally close.
        assert_eq!(repr(-(620_981_928_693_950.0 + 0.25)), "-620981928693950.2");
    }

    #[test]
    fn shortest_float_examples() {
        // Python: ToShortestFloat(struct-rounded value).
        assert_eq!(shortest_float(0.1), 0.1);
        assert_eq!(shortest_float(1.0 / 3.0), 0.33333334);
        assert_eq!(shortest_float(123456789.0), 123456790.0);
        assert_eq!(shortest_float(3.4e38), 3.4e38);
    }
}
