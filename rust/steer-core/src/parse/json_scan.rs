//! One pass over JSON (or JSON Lines) bytes: nesting depth and UTF-8 validity.

/// Where a problem starts: 1-based line and 1-based byte column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Spot {
    pub line: usize,
    pub column: usize,
}

/// The first problem found in the bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Problem {
    /// An `[` or `{` opened more than `max_depth` levels deep.
    TooDeep(Spot),
    /// A byte sequence that is not UTF-8.
    BadUtf8(Spot),
}

/// Scans `data` for the first `[`/`{` nested deeper than `max_depth` (outside
/// strings) and the first invalid UTF-8 sequence; returns whichever comes
/// first, or `None` when the bytes are fine.
///
/// It is not a JSON validator: malformed JSON passes unless it is too deep or
/// not UTF-8, and the real parser reports it. A raw newline ends a string
/// (valid JSON has none inside strings), so one unterminated string in a JSON
/// Lines file cannot hide brackets on the following lines.
pub fn scan_json(data: &[u8], max_depth: usize) -> Option<Problem> {
    let bad_utf8 = match std::str::from_utf8(data) {
        Ok(_) => None,
        Err(e) => Some(e.valid_up_to()),
    };
    // Only bytes before the first invalid sequence are scanned for depth.
    let end = bad_utf8.unwrap_or(data.len());
    let mut depth = 0usize;
    let mut line = 1usize;
    let mut line_start = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (i, &b) in data[..end].iter().enumerate() {
        if b == b'\n' {
            line += 1;
            line_start = i + 1;
            in_string = false;
            escaped = false;
            continue;
        }
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > max_depth {
                    return Some(Problem::TooDeep(Spot {
                        line,
                        column: i - line_start + 1,
                    }));
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    bad_utf8.map(|at| {
        let before = &data[..at];
        let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
        let start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |p| p + 1);
        Problem::BadUtf8(Spot {
            line,
            column: at - start + 1,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Plain reference: the deepest nesting outside strings, by recursion-free
    /// counting over characters of a valid string.
    fn reference_depth(text: &str) -> usize {
        let (mut depth, mut best, mut in_str, mut esc) = (0usize, 0usize, false, false);
        for c in text.chars() {
            if c == '\n' {
                in_str = false;
                esc = false;
            } else if in_str {
                if esc {
                    esc = false
                } else if c == '\\' {
                    esc = true
                } else if c == '"' {
                    in_str = false
                }
            } else if c == '"' {
                in_str = true
            } else if c == '[' || c == '{' {
                depth += 1;
                best = best.max(depth);
            } else if c == ']' || c == '}' {
                depth = depth.saturating_sub(1);
            }
        }
        best
    }

    #[test]
    fn shallow_json_passes() {
        let text = br#"{"a": [1, {"b": "[[[[[[[[["}], "c": "\"{{{{"}"#;
        assert_eq!(scan_json(text, 3), None);
        assert_eq!(
            scan_json(text, 2),
            Some(Problem::TooDeep(Spot {
                line: 1,
                column: 11
            }))
        );
    }

    #[test]
    fn deep_nesting_is_found_with_its_line() {
        let mut text = b"{\"ok\": 1}\n".to_vec();
        text.extend(std::iter::repeat_n(b'[', 10_000));
        assert_eq!(
            scan_json(&text, 64),
            Some(Problem::TooDeep(Spot {
                line: 2,
                column: 65
            }))
        );
    }

    #[test]
    fn invalid_utf8_is_found_with_its_line() {
        let text = b"{\"a\": 1}\n{\"b\": \"x\xff\"}\n";
        assert_eq!(
            scan_json(text, 64),
            Some(Problem::BadUtf8(Spot { line: 2, column: 9 }))
        );
        // A truncated multi-byte character at the very end.
        assert_eq!(
            scan_json(b"\"\xc3", 64),
            Some(Problem::BadUtf8(Spot { line: 1, column: 2 }))
        );
    }

    proptest! {
        #[test]
        fn depth_matches_reference(text in "[\\[\\]{}\"\\\\a\n ]{0,200}", limit in 0usize..12) {
            let found = scan_json(text.as_bytes(), limit);
            let deep = reference_depth(&text) > limit;
            prop_assert_eq!(matches!(found, Some(Problem::TooDeep(_))), deep);
            prop_assert!(!matches!(found, Some(Problem::BadUtf8(_))));
        }

        #[test]
        fn utf8_verdict_matches_std(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
            let found = scan_json(&bytes, usize::MAX);
            let valid = std::str::from_utf8(&bytes).is_ok();
            prop_assert_eq!(found.is_none(), valid);
            if let Some(Problem::BadUtf8(spot)) = found {
                prop_assert!(spot.line >= 1 && spot.column >= 1);
            }
        }

        #[test]
        fn never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..300), limit in 0usize..8) {
            let _ = scan_json(&bytes, limit);
        }
    }
}
