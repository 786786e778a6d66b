//! The numeric answer in a free-text reply: one hand-written byte scanner.
//!
//! # Which number
//!
//! The answer is, in this order of precedence:
//! 1. the last number inside the last `\boxed{…}` that holds one (braces may
//!    nest, so `\boxed{\frac{3}{4}}` reads 0.75; an unclosed `\boxed{` is
//!    not a box);
//! 2. else the last number on the line after the last `ANSWER:` that holds
//!    one (case-insensitive; markdown `**Answer:**` and `Answer**:` too; the
//!    line is the first non-blank one after the colon);
//! 3. else the last number anywhere in the text.
//!
//! A reply with no number has no answer (`None`), never a parsed 0; so has a
//! reply whose answer does not fit a finite `f64` (`1e999`, `3/0`).
//!
//! # What a number is
//!
//! Digits with an optional decimal part (`.5` too) and exponent (`1.2e3`,
//! `1.2E-3`); thousands separated by `,` (or LaTeX `{,}`) only in groups of
//! exactly three (`1,234,567.5`; `1,23` is two numbers); a sign (`-`, `+`,
//! or the Unicode minus `−`) right before the digits or before a currency
//! sign, unless the sign follows a letter or digit (`3-5` is a range, read
//! 5); a currency sign before the number (`$`, `\$`, `€`, `£`, `¥`, `₹`,
//! one space allowed after it); a power of ten (`1.2 × 10^3`, `1.2×10³`,
//! `1.2 \times 10^{3}`, `1.2*10^3`); a fraction `3/4` (spaces allowed round
//! the slash) or `\frac{3}{4}` / `\dfrac` / `\tfrac` with a number in each
//! brace; a mixed number `1 1/2` (a whole number, one space, then a proper
//! fraction of whole numbers); a percent mark after it (`%`, `\%`, the word
//! `percent` or `per cent`). Anything after the number (units, `per unit`,
//! punctuation, markdown `**`) is ignored.
//!
//! # Percent and the answer form
//!
//! [`extract`] gives the value as written and whether it carried a percent
//! mark. The question's answer form decides what the value means
//! ([`in_form`]): for [`Form::Number`] and [`Form::Money`] a percent mark
//! divides by 100 (`25%` is 0.25); for [`Form::Percent`] the value is read in
//! percent units whether or not it carries the mark (`25%` and `25` are both
//! 25), and the key, stored as a fraction, is compared as a percentage
//! ([`key_in_form`]: 0.25 becomes 25).

use crate::error::{Error, Result};
use rayon::prelude::*;

/// A number read from a reply: its value as written, and whether a percent
/// mark followed it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reading {
    pub value: f64,
    pub percent: bool,
}

/// The form a question wants its answer in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// A plain number (a decimal where a share is asked for).
    Number,
    /// An amount of money.
    Money,
    /// A percentage: compared in percent units.
    Percent,
}

impl Form {
    /// The form named `name` (`number`, `money` or `percent`).
    pub fn parse(name: &str) -> Option<Form> {
        match name {
            "number" | "" => Some(Form::Number),
            "money" => Some(Form::Money),
            "percent" => Some(Form::Percent),
            _ => None,
        }
    }
}

/// The value a reading stands for in `form` (see the module docs).
#[inline]
pub fn in_form(reading: Reading, form: Form) -> f64 {
    match form {
        Form::Percent => reading.value,
        _ if reading.percent => reading.value / 100.0,
        _ => reading.value,
    }
}

/// The key (stored as a fraction for percentages) in the units replies are
/// compared in for `form`.
#[inline]
pub fn key_in_form(key: f64, form: Form) -> f64 {
    match form {
        Form::Percent => key * 100.0,
        _ => key,
    }
}

/// The answer in `text` (see the module docs), or `None` when it has none.
pub fn extract(text: &str) -> Option<Reading> {
    let s = text.as_bytes();
    if let Some(found) = boxed(s) {
        return found;
    }
    if let Some(found) = after_answer(s) {
        return found;
    }
    finite(last_number(s))
}

/// Readings of many replies in their forms: `values[i]` is NaN where reply
/// `i` has no answer. `forms` holds one form for every reply, or one for
/// all. Runs in parallel when the batch is large.
pub fn extract_batch(
    texts: &[&str],
    forms: &[Form],
    values: &mut [f64],
    percent: &mut [bool],
) -> Result<()> {
    let n = texts.len();
    if forms.len() != n && forms.len() != 1 {
        return Err(Error::invalid(
            "forms",
            format!(
                "{} forms for {n} replies (give one, or one per reply)",
                forms.len()
            ),
        ));
    }
    if values.len() != n || percent.len() != n {
        return Err(Error::invalid(
            "values",
            "output length differs from the replies",
        ));
    }
    let one = |i: usize, v: &mut f64, p: &mut bool| {
        let form = if forms.len() == 1 { forms[0] } else { forms[i] };
        match extract(texts[i]) {
            Some(r) => {
                *v = in_form(r, form);
                *p = r.percent;
            }
            None => {
                *v = f64::NAN;
                *p = false;
            }
        }
    };
    if n < PARALLEL_FROM {
        for (i, (v, p)) in values.iter_mut().zip(percent.iter_mut()).enumerate() {
            one(i, v, p);
        }
    } else {
        values
            .par_iter_mut()
            .zip(percent.par_iter_mut())
            .enumerate()
            .with_min_len(1024)
            .for_each(|(i, (v, p))| one(i, v, p));
    }
    Ok(())
}

/// Batches smaller than this run on the calling thread.
const PARALLEL_FROM: usize = 4096;

/// `Some(None)` (no answer) for a non-finite value.
#[inline]
fn finite(r: Option<Reading>) -> Option<Reading> {
    r.filter(|r| r.value.is_finite())
}

// ---------------------------------------------------------------- precedence

/// Closing braces remembered while scanning back for `\boxed{`; deeper
/// nesting is counted but its boxes are not recognised.
const MAX_DEPTH: usize = 64;

/// The last `\boxed{…}` holding a number: `Some(answer)` when one does
/// (`Some(None)` if its number is not finite), `None` when none does.
fn boxed(s: &[u8]) -> Option<Option<Reading>> {
    // Cheap test first: most replies have no box.
    if !contains(s, b"\\boxed") {
        return None;
    }
    // Walk back: each `{` closes against the nearest unmatched `}` after it.
    let mut closers = [0usize; MAX_DEPTH];
    let mut depth = 0usize;
    let mut deeper = 0usize;
    for i in (0..s.len()).rev() {
        match s[i] {
            b'}' => {
                if depth < MAX_DEPTH && deeper == 0 {
                    closers[depth] = i;
                    depth += 1;
                } else {
                    deeper += 1;
                }
            }
            b'{' => {
                if deeper > 0 {
                    deeper -= 1;
                    continue;
                }
                if depth == 0 {
                    continue; // unclosed
                }
                depth -= 1;
                let close = closers[depth];
                if is_box_open(s, i) {
                    if let Some(r) = last_number(&s[i + 1..close]) {
                        return Some(finite(Some(r)));
                    }
                }
            }
            _ => {}
        }
    }
    None
}

/// Whether the `{` at `open` follows `\boxed` (spaces allowed between).
#[inline]
fn is_box_open(s: &[u8], open: usize) -> bool {
    let mut j = open;
    while j > 0 && s[j - 1] == b' ' {
        j -= 1;
    }
    j >= 6 && &s[j - 6..j] == b"\\boxed"
}

/// The last `ANSWER:` line holding a number, like [`boxed`]. Found from the
/// colons back: a colon preceded (spaces, tabs and `*` between) by "answer".
fn after_answer(s: &[u8]) -> Option<Option<Reading>> {
    const WORD: &[u8] = b"answer";
    let mut limit = s.len();
    let mut end = s.len();
    while let Some(colon) = s[..end].iter().rposition(|&b| b == b':') {
        end = colon;
        let mut w = colon;
        while w > 0 && matches!(s[w - 1], b' ' | b'\t' | b'*') {
            w -= 1;
        }
        if w < WORD.len() || !s[w - WORD.len()..w].eq_ignore_ascii_case(WORD) {
            continue;
        }
        let at = w - WORD.len();
        if colon < limit {
            let mut j = colon + 1;
            while j < limit && (s[j].is_ascii_whitespace() || s[j] == b'*') {
                j += 1;
            }
            let line_end = s[j..limit]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(limit, |p| j + p);
            if let Some(r) = last_number(&s[j..line_end]) {
                return Some(finite(Some(r)));
            }
        }
        // An earlier ANSWER's line stops where this one starts: what lies
        // after was read already and held no number.
        limit = at;
        end = end.min(at);
    }
    None
}

/// Whether `s` holds `needle` (which starts with a backslash, rare in text).
#[inline]
fn contains(s: &[u8], needle: &[u8]) -> bool {
    let mut from = 0;
    while let Some(p) = s[from..].iter().position(|&b| b == needle[0]) {
        if s[from + p..].starts_with(needle) {
            return true;
        }
        from += p + 1;
    }
    false
}

// ------------------------------------------------------------------ numbers

/// Where a number sits: byte spans, evaluated only for the last one.
#[derive(Debug, Clone, Copy, Default)]
struct Token {
    negative: bool,
    /// Mantissa (digits, separators, decimal part, exponent).
    mant: (usize, usize),
    /// The power of ten of `× 10^k`, if any.
    times_ten: Option<i32>,
    /// A denominator (`a/b`, `\frac{a}{b}`), if any.
    den: Option<(usize, usize)>,
    /// The whole part of a mixed number (`1 1/2`), if any.
    whole: Option<(usize, usize)>,
    percent: bool,
}

/// The last number in `s`, evaluated.
///
/// Numbers are read forward (a number's reading depends on what precedes
/// it), but only from a point near the last digit where no number can
/// straddle: just after a run of two or more ASCII letters that is not a
/// LaTeX command (a number holds at most one letter in a row, `e` or `x`,
/// and ends at most with the word `percent`). Long replies cost little more
/// than their tail.
fn last_number(s: &[u8]) -> Option<Reading> {
    let last_digit = s.iter().rposition(u8::is_ascii_digit)?;
    scan_from(s, restart(s, last_digit))
}

/// The last number in `s` read forward from byte `i`, evaluated.
fn scan_from(s: &[u8], mut i: usize) -> Option<Reading> {
    let mut last: Option<Token> = None;
    let n = s.len();
    while i < n {
        let b = s[i];
        if b.is_ascii_digit() || (b == b'.' && i + 1 < n && s[i + 1].is_ascii_digit()) {
            let (tok, end) = number_at(s, i);
            last = Some(tok);
            i = end;
        } else if b == b'\\' {
            if let Some((tok, end)) = latex_frac_at(s, i) {
                last = Some(tok);
                i = end;
            } else {
                i += 1;
            }
        } else {
            i += 1;
        }
    }
    last.and_then(|t| evaluate(s, &t))
}

/// Where to start reading for the number holding byte `digit`: just after
/// the nearest run of 2+ ASCII letters before it that no backslash starts.
#[inline]
fn restart(s: &[u8], digit: usize) -> usize {
    let mut j = digit;
    while j > 0 {
        if s[j - 1].is_ascii_alphabetic() {
            let run_end = j;
            while j > 0 && s[j - 1].is_ascii_alphabetic() {
                j -= 1;
            }
            let latex = j > 0 && s[j - 1] == b'\\';
            if run_end - j >= 2 && !latex {
                return run_end;
            }
        } else {
            j -= 1;
        }
    }
    0
}

const MINUS: &[u8] = "−".as_bytes();
const CURRENCIES: [&[u8]; 6] = [
    b"\\$",
    b"$",
    "€".as_bytes(),
    "£".as_bytes(),
    "¥".as_bytes(),
    "₹".as_bytes(),
];

#[inline]
fn ends_with_at(s: &[u8], end: usize, suffix: &[u8]) -> bool {
    end >= suffix.len() && &s[end - suffix.len()..end] == suffix
}

/// Whether a sign ends at `end` (and where it starts), not glued to a word
/// or number before it.
#[inline]
fn sign_before(s: &[u8], end: usize) -> Option<(bool, usize)> {
    let (negative, start) = if end >= 1 && (s[end - 1] == b'-' || s[end - 1] == b'+') {
        (s[end - 1] == b'-', end - 1)
    } else if ends_with_at(s, end, MINUS) {
        (true, end - MINUS.len())
    } else {
        return None;
    };
    if start > 0 && (s[start - 1].is_ascii_alphanumeric() || s[start - 1] == b'.') {
        return None;
    }
    Some((negative, start))
}

/// The sign of a number whose first byte is at `start`: `-5`, `-$5`, `$-5`.
#[inline]
fn sign_of(s: &[u8], start: usize) -> bool {
    if let Some((negative, _)) = sign_before(s, start) {
        return negative;
    }
    let mut j = start;
    if j > 0 && s[j - 1] == b' ' {
        j -= 1;
    }
    for c in CURRENCIES {
        if ends_with_at(s, j, c) {
            return sign_before(s, j - c.len()).is_some_and(|(neg, _)| neg);
        }
    }
    false
}

/// Digits from `i`; the end.
#[inline]
fn digits(s: &[u8], mut i: usize) -> usize {
    while i < s.len() && s[i].is_ascii_digit() {
        i += 1;
    }
    i
}

/// An unsigned mantissa starting at `i` (a digit, or `.` before a digit):
/// its end, and whether it is a plain whole number (no separator, decimal
/// part or exponent).
fn mantissa(s: &[u8], i: usize) -> (usize, bool) {
    let n = s.len();
    let mut p = i;
    let mut plain = true;
    if s[p].is_ascii_digit() {
        p = digits(s, p);
        if p - i <= 3 {
            // Thousands groups: exactly three digits after each separator.
            loop {
                let sep = if p < n && s[p] == b',' {
                    1
                } else if s[p..].starts_with(b"{,}") {
                    3
                } else {
                    0
                };
                if sep == 0 {
                    break;
                }
                let q = p + sep;
                let e = digits(s, q);
                if e - q != 3 {
                    break;
                }
                p = e;
                plain = false;
            }
        }
    }
    if p + 1 < n && s[p] == b'.' && s[p + 1].is_ascii_digit() {
        p = digits(s, p + 1);
        plain = false;
    }
    if p + 1 < n && (s[p] == b'e' || s[p] == b'E') {
        let q = if matches!(s[p + 1], b'+' | b'-') {
            p + 2
        } else {
            p + 1
        };
        if q < n && s[q].is_ascii_digit() {
            p = digits(s, q);
            plain = false;
        }
    }
    (p, plain)
}

#[inline]
fn skip_spaces(s: &[u8], mut i: usize) -> usize {
    while i < s.len() && s[i] == b' ' {
        i += 1;
    }
    i
}

const TIMES: [&[u8]; 6] = [
    "×".as_bytes(),
    "·".as_bytes(),
    b"\\times",
    b"\\cdot",
    b"*",
    b"x",
];
const SUPERSCRIPTS: [&str; 10] = ["⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"];

/// A superscript digit at `i`: its value and byte length.
#[inline]
fn superscript_at(s: &[u8], i: usize) -> Option<(i32, usize)> {
    SUPERSCRIPTS
        .iter()
        .position(|d| s[i..].starts_with(d.as_bytes()))
        .map(|k| (k as i32, SUPERSCRIPTS[k].len()))
}

/// `× 10^k` (or `×10³`) from `i`: the power and the end.
fn times_ten_at(s: &[u8], i: usize) -> Option<(i32, usize)> {
    let mut p = skip_spaces(s, i);
    let op = TIMES.iter().find(|t| s[p..].starts_with(t))?;
    p = skip_spaces(s, p + op.len());
    if !s[p..].starts_with(b"10") {
        return None;
    }
    p += 2;
    let mut power: i64 = 0;
    let mut negative = false;
    if p < s.len() && s[p] == b'^' {
        p += 1;
        let braced = p < s.len() && s[p] == b'{';
        if braced {
            p += 1;
        }
        if p < s.len() && (s[p] == b'-' || s[p] == b'+') {
            negative = s[p] == b'-';
            p += 1;
        } else if s[p..].starts_with(MINUS) {
            negative = true;
            p += MINUS.len();
        }
        let e = digits(s, p);
        if e == p {
            return None;
        }
        for &d in &s[p..e.min(p + 6)] {
            power = power * 10 + i64::from(d - b'0');
        }
        if e - p > 6 {
            power = 999_999;
        }
        p = e;
        if braced {
            if p < s.len() && s[p] == b'}' {
                p += 1;
            } else {
                return None;
            }
        }
    } else {
        if s[p..].starts_with("⁻".as_bytes()) {
            negative = true;
            p += "⁻".len();
        } else if s[p..].starts_with("⁺".as_bytes()) {
            p += "⁺".len();
        }
        let start = p;
        while p < s.len() {
            let Some((d, len)) = superscript_at(s, p) else {
                break;
            };
            power = (power * 10 + i64::from(d)).min(999_999);
            p += len;
        }
        if p == start {
            return None;
        }
    }
    let power = if negative { -power } else { power };
    Some((power as i32, p))
}

/// A percent mark from `i` (after optional spaces): its end.
#[inline]
fn percent_at(s: &[u8], i: usize) -> Option<usize> {
    let p = skip_spaces(s, i);
    if p < s.len() && s[p] == b'%' {
        return Some(p + 1);
    }
    if s[p..].starts_with(b"\\%") {
        return Some(p + 2);
    }
    for word in [&b"percent"[..], b"per cent"] {
        if s.len() >= p + word.len()
            && s[p..p + word.len()].eq_ignore_ascii_case(word)
            && !s.get(p + word.len()).is_some_and(u8::is_ascii_alphabetic)
        {
            return Some(p + word.len());
        }
    }
    None
}

/// The number starting at `i` (a digit, or `.` before a digit) and its end.
fn number_at(s: &[u8], i: usize) -> (Token, usize) {
    let n = s.len();
    let (mant_end, plain) = mantissa(s, i);
    let mut tok = Token {
        negative: sign_of(s, i),
        mant: (i, mant_end),
        ..Token::default()
    };
    let mut p = mant_end;
    // A mixed number: whole, one space, a proper fraction of whole numbers.
    if plain && p + 1 < n && s[p] == b' ' && s[p + 1].is_ascii_digit() {
        let a = p + 1;
        let a_end = digits(s, a);
        if a_end + 1 < n && s[a_end] == b'/' && s[a_end + 1].is_ascii_digit() {
            let b_end = digits(s, a_end + 1);
            let after = s.get(b_end).copied().unwrap_or(b' ');
            if !after.is_ascii_digit()
                && after != b'.'
                && after != b','
                && after != b'/'
                && whole_less(&s[a..a_end], &s[a_end + 1..b_end])
            {
                tok.whole = Some((i, mant_end));
                tok.mant = (a, a_end);
                tok.den = Some((a_end + 1, b_end));
                p = b_end;
                if let Some(e) = percent_at(s, p) {
                    tok.percent = true;
                    p = e;
                }
                return (tok, p);
            }
        }
    }
    if let Some((power, e)) = times_ten_at(s, p) {
        tok.times_ten = Some(power);
        p = e;
    }
    // A fraction a/b.
    let q = skip_spaces(s, p);
    if q < n && s[q] == b'/' {
        let d = skip_spaces(s, q + 1);
        if d < n
            && (s[d].is_ascii_digit() || (s[d] == b'.' && d + 1 < n && s[d + 1].is_ascii_digit()))
        {
            let (d_end, _) = mantissa(s, d);
            tok.den = Some((d, d_end));
            p = d_end;
        }
    }
    if let Some(e) = percent_at(s, p) {
        tok.percent = true;
        p = e;
    }
    (tok, p)
}

/// Whether whole number `a` < whole number `b` (digit strings), and `a > 0`.
#[inline]
fn whole_less(a: &[u8], b: &[u8]) -> bool {
    let a = trim_zeros(a);
    let b = trim_zeros(b);
    !a.is_empty() && (a.len() < b.len() || (a.len() == b.len() && a < b))
}

#[inline]
fn trim_zeros(d: &[u8]) -> &[u8] {
    let k = d.iter().take_while(|&&c| c == b'0').count();
    &d[k..]
}

/// `\frac{a}{b}` (or `\dfrac`, `\tfrac`) at `i` (the backslash), each brace
/// holding one number (a sign allowed in the numerator).
fn latex_frac_at(s: &[u8], i: usize) -> Option<(Token, usize)> {
    let rest = &s[i + 1..];
    let name = [&b"frac"[..], b"dfrac", b"tfrac"]
        .into_iter()
        .find(|w| rest.starts_with(w))?;
    let mut p = skip_spaces(s, i + 1 + name.len());
    let (num_neg, num, e) = braced_number(s, p)?;
    p = skip_spaces(s, e);
    let (den_neg, den, e) = braced_number(s, p)?;
    let mut tok = Token {
        negative: sign_before(s, i).is_some_and(|(neg, _)| neg) ^ num_neg ^ den_neg,
        mant: num,
        den: Some(den),
        ..Token::default()
    };
    p = e;
    if let Some(e) = percent_at(s, p) {
        tok.percent = true;
        p = e;
    }
    Some((tok, p))
}

/// `{ number }` at `i`: its sign, mantissa span and the end after `}`.
fn braced_number(s: &[u8], i: usize) -> Option<(bool, (usize, usize), usize)> {
    if i >= s.len() || s[i] != b'{' {
        return None;
    }
    let mut p = skip_spaces(s, i + 1);
    let mut negative = false;
    if p < s.len() && (s[p] == b'-' || s[p] == b'+') {
        negative = s[p] == b'-';
        p += 1;
    } else if s[p..].starts_with(MINUS) {
        negative = true;
        p += MINUS.len();
    }
    if p >= s.len()
        || !(s[p].is_ascii_digit()
            || (s[p] == b'.' && p + 1 < s.len() && s[p + 1].is_ascii_digit()))
    {
        return None;
    }
    let (end, _) = mantissa(s, p);
    let close = skip_spaces(s, end);
    if close < s.len() && s[close] == b'}' {
        Some((negative, (p, end), close + 1))
    } else {
        None
    }
}

// --------------------------------------------------------------- evaluation

/// Longest mantissa parsed on the stack; longer ones (pathological) allocate.
const STACK: usize = 96;

/// The f64 of a mantissa span (separators dropped), times 10^`power`.
fn parse_span(s: &[u8], (a, b): (usize, usize), power: Option<i32>) -> Option<f64> {
    let mut buf = [0u8; STACK];
    let mut len = 0usize;
    let mut heap: Vec<u8> = Vec::new();
    let mut push = |c: u8, len: &mut usize| {
        if *len < STACK {
            buf[*len] = c;
        } else {
            if heap.is_empty() {
                heap.extend_from_slice(&buf);
            }
            heap.push(c);
        }
        *len += 1;
    };
    for &c in &s[a..b] {
        if c != b',' && c != b'{' && c != b'}' {
            push(c, &mut len);
        }
    }
    if let Some(k) = power {
        let mut exp = [0u8; 12];
        let mut e = 0;
        exp[e] = b'e';
        e += 1;
        let mut k = i64::from(k);
        if k < 0 {
            exp[e] = b'-';
            e += 1;
            k = -k;
        }
        let mut digits = [0u8; 10];
        let mut d = 0;
        loop {
            digits[d] = b'0' + (k % 10) as u8;
            d += 1;
            k /= 10;
            if k == 0 {
                break;
            }
        }
        for j in (0..d).rev() {
            exp[e] = digits[j];
            e += 1;
        }
        // A mantissa with its own exponent cannot take a second: multiply.
        let own = s[a..b].iter().any(|&c| c == b'e' || c == b'E');
        if own {
            let m = parse_span(s, (a, b), None)?;
            return Some(m * 10f64.powi(power.unwrap_or(0)));
        }
        for &c in &exp[..e] {
            push(c, &mut len);
        }
    }
    let bytes = if len <= STACK { &buf[..len] } else { &heap[..] };
    // Only ASCII digits, '.', 'e', signs were pushed.
    std::str::from_utf8(bytes).ok()?.parse::<f64>().ok()
}

fn evaluate(s: &[u8], t: &Token) -> Option<Reading> {
    let mut value = parse_span(s, t.mant, t.times_ten)?;
    if let Some(den) = t.den {
        let d = parse_span(s, den, None)?;
        value /= d; // 0 gives ±inf or NaN: not finite, so no answer
    }
    if let Some(whole) = t.whole {
        value += parse_span(s, whole, None)?;
    }
    if t.negative {
        value = -value;
    }
    Some(Reading {
        value,
        percent: t.percent,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(text: &str) -> Option<f64> {
        extract(text).map(|r| r.value)
    }

    #[test]
    fn precedence() {
        assert_eq!(v("so \\boxed{12.5} dollars, not 13"), Some(12.5));
        assert_eq!(v("\\boxed{1,250} and later \\boxed{3/4}"), Some(0.75));
        assert_eq!(v("\\boxed{7} then \\boxed{none}"), Some(7.0));
        assert_eq!(v("ANSWER: 42\nthen some 7"), Some(42.0));
        assert_eq!(v("answer: 1\nAnswer: none\nmore 9"), Some(1.0));
        assert_eq!(v("**Answer:** 8 apples"), Some(8.0));
        assert_eq!(v("ANSWER:\n\n 5"), Some(5.0));
        assert_eq!(v("we get 3 then 4.5"), Some(4.5));
        assert_eq!(v("\\boxed{3} ANSWER: 4"), Some(3.0));
    }

    #[test]
    fn forms_of_numbers() {
        assert_eq!(v("$1,234.50"), Some(1234.5));
        assert_eq!(v("1,23"), Some(23.0));
        assert_eq!(v("−2.5"), Some(-2.5));
        assert_eq!(v("-$5"), Some(-5.0));
        assert_eq!(v("$-5"), Some(-5.0));
        assert_eq!(v("3-5"), Some(5.0));
        assert_eq!(v("1.2e3"), Some(1200.0));
        assert_eq!(v("1.2E-3"), Some(0.0012));
        assert_eq!(v("1.2 × 10^3"), Some(1200.0));
        assert_eq!(v("1.2×10³"), Some(1200.0));
        assert_eq!(v("1.2 \\times 10^{-2}"), Some(0.012));
        assert_eq!(v("3/4"), Some(0.75));
        assert_eq!(v("\\frac{3}{4}"), Some(0.75));
        assert_eq!(v("-\\dfrac{1}{2}"), Some(-0.5));
        assert_eq!(v("1 1/2 cups"), Some(1.5));
        assert_eq!(v("3 4/2"), Some(2.0));
        assert_eq!(v("**42**."), Some(42.0));
        assert_eq!(v("$5 per unit"), Some(5.0));
        assert_eq!(v("1{,}234"), Some(1234.0));
        let r = extract("25 percent").unwrap();
        assert!(r.percent && r.value == 25.0);
        assert!(extract("\\boxed{25\\%}").unwrap().percent);
    }

    #[test]
    fn no_answer() {
        for text in ["", "none", "...", "NaN", "inf", "1e999", "3/0", "\\boxed{"] {
            assert_eq!(v(text), None, "{text:?}");
        }
        assert_eq!(v("\\boxed{5"), Some(5.0));
        assert_eq!(v("\\boxed{\\boxed{\\frac{1}{4}}}"), Some(0.25));
    }

    #[test]
    fn percent_and_forms() {
        let r = extract("25%").unwrap();
        assert_eq!(in_form(r, Form::Number), 0.25);
        assert_eq!(in_form(r, Form::Percent), 25.0);
        let r = extract("25").unwrap();
        assert_eq!(in_form(r, Form::Percent), 25.0);
        assert_eq!(key_in_form(0.25, Form::Percent), 25.0);
        assert_eq!(Form::parse("money"), Some(Form::Money));
        assert_eq!(Form::parse("x"), None);
    }

    #[test]
    fn batch_matches_one_by_one() {
        let texts: Vec<String> = (0..10_000).map(|i| format!("it is {i}%")).collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let mut values = vec![0.0; refs.len()];
        let mut marks = vec![false; refs.len()];
        extract_batch(&refs, &[Form::Number], &mut values, &mut marks).unwrap();
        assert_eq!(values[50], 0.5);
        assert!(marks.iter().all(|&m| m));
        assert!(extract_batch(&refs, &[Form::Number; 2], &mut values, &mut marks).is_err());
    }

    #[test]
    fn hostile_input_is_linear() {
        let big = "answer: ".repeat(200_000);
        assert_eq!(v(&big), None);
        let boxes = "\\boxed{".repeat(100_000) + "1" + &"}".repeat(100_000);
        assert_eq!(v(&boxes), Some(1.0));
        let digits = "9".repeat(1_000_000);
        assert_eq!(v(&digits), None); // overflows f64
    }

    proptest::proptest! {
        #[test]
        fn written_numbers_read_back(x in -1e9f64..1e9, k in 0usize..4) {
            let text = match k {
                0 => format!("The answer is {x}."),
                1 => format!("So \\boxed{{{x}}}"),
                2 => format!("ANSWER: {x} units"),
                _ => format!("about {x:e}"),
            };
            proptest::prop_assert_eq!(v(&text), Some(x));
        }

        #[test]
        fn reading_from_the_restart_point_changes_nothing(
            text in "([a-z]{1,4}|\\\\(frac|times|cdot)|[0-9]{1,4}|[ .,/{}^%*$+-]|−|×|³| percent| per cent){0,24}"
        ) {
            let s = text.as_bytes();
            let full = scan_from(s, 0).map(|r| (r.value.to_bits(), r.percent));
            let fast = last_number(s).map(|r| (r.value.to_bits(), r.percent));
            proptest::prop_assert_eq!(fast, full);
        }

        #[test]
        fn never_panics(text in "\\PC{0,64}") {
            let _ = extract(&text);
        }
    }
}
