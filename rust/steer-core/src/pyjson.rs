//! JSON text exactly as Python's `json.dumps(x, separators=(",", ":"))`
//! writes it (ASCII only, floats as `repr` writes them), so a payload written
//! here has the bytes a Python writer would give.
//!
//! Only the scalars are here: walking a value tree is the caller's (the
//! binding walks Python objects directly).

use std::fmt::Write;

/// Appends `repr(x)` of a finite float as Python writes it: the shortest
/// digits that read back to `x`, in fixed notation when the decimal point
/// falls within 16 places before to 4 after them (`0.0001`, `1234.5`, `3.0`),
/// else in exponent notation with at least two exponent digits (`1e-05`,
/// `1.5e+16`). Non-finite values are the caller's to refuse.
pub fn push_float(out: &mut String, x: f64) {
    debug_assert!(x.is_finite());
    if x.is_sign_negative() {
        out.push('-');
    }
    // Rust's `{:e}` also writes the shortest round-tripping digits (closest
    // to x among them), as `d.ddde±E`; only the layout differs from Python's.
    let mut sci = String::with_capacity(32);
    write!(sci, "{:e}", x.abs()).expect("writing to a String cannot fail");
    let (mantissa, exponent) = sci.split_once('e').expect("`{:e}` always has an exponent");
    let exponent: i32 = exponent.parse().expect("`{:e}` writes an integer exponent");
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    // Python's decpt: x = 0.d1d2… × 10^decpt.
    let decpt = exponent + 1;
    if decpt <= -4 || decpt > 16 {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let sign = if exponent < 0 { '-' } else { '+' };
        write!(out, "e{sign}{:02}", exponent.unsigned_abs()).expect("writing to a String");
    } else if decpt <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', decpt.unsigned_abs() as usize));
        out.push_str(&digits);
    } else {
        let point = decpt as usize;
        if point < digits.len() {
            out.push_str(&digits[..point]);
            out.push('.');
            out.push_str(&digits[point..]);
        } else {
            out.push_str(&digits);
            out.extend(std::iter::repeat_n('0', point - digits.len()));
            out.push_str(".0");
        }
    }
}

/// Appends `s` as a JSON string literal with Python's `ensure_ascii`
/// escapes: printable ASCII as is, `\"`, `\\`, `\b \f \n \r \t`, and every
/// other character as `\uxxxx` (lower-case hex; a surrogate pair above U+FFFF).
pub fn push_str(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            ' '..='~' => out.push(c),
            _ => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    write!(out, "\\u{unit:04x}").expect("writing to a String cannot fail");
                }
            }
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn float(x: f64) -> String {
        let mut s = String::new();
        push_float(&mut s, x);
        s
    }

    #[test]
    fn floats_are_written_as_python_repr_writes_them() {
        // Each pair checked against CPython 3.11's repr.
        for (x, text) in [
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1.0, "1.0"),
            (3.25, "3.25"),
            (-46.5, "-46.5"),
            (0.1, "0.1"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (0.000123, "0.000123"),
            (1.5e-7, "1.5e-07"),
            (1e16, "1e+16"),
            (1.5e16, "1.5e+16"),
            (9999999999999998.0, "9999999999999998.0"),
            (123456789012345.6, "123456789012345.6"),
            (1e22, "1e+22"),
            (1e100, "1e+100"),
            (5e-324, "5e-324"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (2.0 / 3.0, "0.6666666666666666"),
            (100.0, "100.0"),
            (0.30000000000000004, "0.30000000000000004"),
        ] {
            assert_eq!(float(x), text, "{x:?}");
        }
    }

    #[test]
    fn strings_take_python_ascii_escapes() {
        let mut s = String::new();
        push_str(&mut s, "a\"b\\c\nd\te\u{8}\u{c}\r\u{1}\u{7f}é€😀 ~");
        assert_eq!(
            s,
            "\"a\\\"b\\\\c\\nd\\te\\b\\f\\r\\u0001\\u007f\\u00e9\\u20ac\\ud83d\\ude00 ~\""
        );
    }
}
