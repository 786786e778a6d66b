//! The options of a numeric question: the key, named errors near it, slips of
//! written digits and, when those run short, nearby numbers, formatted at one
//! precision and checked.
//!
//! A faithful port of the Python construction kept as the reference in
//! `tests/numeric_options_reference.py` (the same steps, constraints, tags and
//! rounding); only the random stream differs (`SplitMix64`, not numpy's).
//! Two blind cues are closed by construction: the key is the largest option
//! in about 1/n of the draws and the smallest in about 1/n, and every option
//! is shown at one precision, the nearby numbers taking the key's form (whole
//! or fractional). A third, the key's place by digits shared with the others,
//! is drawn uniformly too (`centre_rank`): slips cluster around what they
//! slip from.
//!
//! Rounding follows Python: `round(x, d)` is the correctly rounded decimal
//! (ties to even on the binary value) read back, which is what formatting with
//! `{:.d}` and parsing gives; `round(x)` is `round_ties_even`.

use super::rng::SplitMix64;
use crate::{Error, Result};

/// The tag of the key.
pub const KEY_TAG: &str = "key";
/// Numbers near the key that no named error produces: honest, not a slip.
pub const FALLBACK_TAG: &str = "other";
/// Menus built per question at most, to put the key at a drawn place among
/// the options by shared digits (see `centre_rank`).
pub const MENU_TRIES: usize = 4;
/// Whole keys up to this size are counts one can miscount by a few.
const COUNTED: f64 = 20.0;
/// Decimals beyond which no digit slips are made.
const SLIP_DECIMALS: u32 = 3;
/// The most decimals a question may show.
const MAX_DECIMALS: u32 = 12;

/// `wrong_<place>_digit` by power of ten, -3..=8.
const WRONG: [&str; 12] = [
    "wrong_thousandths_digit",
    "wrong_hundredths_digit",
    "wrong_tenths_digit",
    "wrong_units_digit",
    "wrong_tens_digit",
    "wrong_hundreds_digit",
    "wrong_thousands_digit",
    "wrong_ten_thousands_digit",
    "wrong_hundred_thousands_digit",
    "wrong_millions_digit",
    "wrong_ten_millions_digit",
    "wrong_hundred_millions_digit",
];
/// `swapped_<higher>_and_<lower>_digits` by the lower power of ten, -3..=7
/// (never -1: no swap across the decimal point).
const SWAPPED: [&str; 11] = [
    "swapped_hundredths_and_thousandths_digits",
    "swapped_tenths_and_hundredths_digits",
    "swapped_units_and_tenths_digits",
    "swapped_tens_and_units_digits",
    "swapped_hundreds_and_tens_digits",
    "swapped_thousands_and_hundreds_digits",
    "swapped_ten_thousands_and_thousands_digits",
    "swapped_hundred_thousands_and_ten_thousands_digits",
    "swapped_millions_and_hundred_thousands_digits",
    "swapped_ten_millions_and_millions_digits",
    "swapped_hundred_millions_and_ten_millions_digits",
];
/// `counted_<k>_over` and `counted_<k>_under` for k = 1, 2, 3.
const MISCOUNTED: [(f64, &str, &str); 3] = [
    (1.0, "counted_one_over", "counted_one_under"),
    (2.0, "counted_two_over", "counted_two_under"),
    (3.0, "counted_three_over", "counted_three_under"),
];
const LOWEST_PLACE: i32 = -3;
const HIGHEST_PLACE: i32 = 8;

fn place_index(power: i32) -> usize {
    (power - LOWEST_PLACE) as usize
}

/// What a numeric menu is built from.
#[derive(Debug, Clone)]
pub struct Request<'a> {
    /// The solver's answer, before rounding.
    pub value: f64,
    /// Decimals shown.
    pub decimals: u32,
    /// The gap options keep from each other, relative to the key (the
    /// grade's: 0.05 for young grades, else 0.02); never under one unit of
    /// the shown rounding.
    pub relative_gap: f64,
    pub nonnegative: bool,
    pub probability: bool,
    /// Written before each number ('$').
    pub unit: &'a str,
    /// Where the answer is known to lie, whatever the numbers (an expectation
    /// lies between its least and greatest outcome): an option outside would
    /// be struck on its face, so none is offered. Infinite for no bound.
    pub low: f64,
    pub high: f64,
    /// Options on the menu, the key included.
    pub n: usize,
    /// The named errors in the template's order: (value before rounding, tag);
    /// non-finite values are skipped.
    pub named: &'a [(f64, &'a str)],
    pub seed: u64,
}

/// The options (texts), their tags and the key's index.
#[derive(Debug, Clone, PartialEq)]
pub struct Menu {
    pub texts: Vec<String>,
    pub tags: Vec<String>,
    pub values: Vec<f64>,
    pub correct: usize,
}

/// A menu, or why the question must be drawn again (`Ok(Err(reason))`).
pub type Outcome = std::result::Result<Menu, String>;

/// Python's `round(x, decimals)`.
pub fn round_to(x: f64, decimals: u32) -> f64 {
    if !x.is_finite() {
        return x;
    }
    if decimals <= 15 {
        // x * 10^d carries at most half an ulp of error; away from a half
        // the nearest integer is the correctly rounded one, and dividing it
        // by 10^d (both exact) gives the double nearest the decimal, as
        // reading the decimal back does.
        let scale = POWERS[decimals as usize];
        let y = x * scale;
        if y.abs() < 4.0e15 {
            let frac = y - y.floor();
            if (frac - 0.5).abs() > y.abs() * 1e-15 + 1e-9 {
                return y.round() / scale;
            }
        }
    }
    format!("{:.*}", decimals as usize, x).parse().unwrap_or(x)
}

/// Python's `f"{x:.{decimals}f}"`.
fn fixed(x: f64, decimals: u32) -> String {
    format!("{:.*}", decimals as usize, x)
}

/// 10^0 ..= 10^15, exact.
const POWERS: [f64; 16] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
];

fn pow10(power: i32) -> f64 {
    10f64.powf(f64::from(power))
}

/// `1234567.5` written '1,234,567.5': commas between groups of three whole digits.
fn group(body: &str) -> String {
    let (whole, frac) = match body.find('.') {
        Some(i) => body.split_at(i),
        None => (body, ""),
    };
    let mut out = String::with_capacity(body.len() + whole.len() / 3);
    for (i, c) in whole.chars().enumerate() {
        if i > 0 && (whole.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out.push_str(frac);
    out
}

/// '$1,250' for a whole amount (steer.generate._format.amount).
fn whole_amount(x: f64, unit: &str) -> String {
    let body = group(&format!("{:.0}", x.abs()));
    if x <= -1.0 {
        format!("-{unit}{body}")
    } else {
        format!("{unit}{body}")
    }
}

/// '$20.00', '-$3.50': `decimals` places always.
fn fixed_amount(x: f64, unit: &str, decimals: u32) -> String {
    let body = group(&fixed(x.abs(), decimals));
    format!("{}{unit}{body}", if x < 0.0 { "-" } else { "" })
}

/// How many digits the whole part of `x` has.
pub fn whole_digits(x: f64) -> usize {
    format!("{:.0}", x.abs().trunc()).len()
}

/// Where the first value (the key) ranks among `values` by the digits it
/// shares with the others: the lowest and highest place (0: shares most) it
/// can take, ties spanning several. An option scores, over its digit places
/// aligned at the decimal point, the other options with the same digit there.
pub fn centre_rank(values: &[f64], decimals: u32) -> (usize, usize) {
    let texts: Vec<String> = values.iter().map(|v| fixed(v.abs(), decimals)).collect();
    let width = texts.iter().map(String::len).max().unwrap_or(0);
    let padded: Vec<Vec<u8>> = texts
        .iter()
        .map(|t| {
            let mut row = vec![b' '; width - t.len()];
            row.extend_from_slice(t.as_bytes());
            row
        })
        .collect();
    let mut scores = vec![0usize; texts.len()];
    for col in 0..width {
        let mut counts = [0usize; 10];
        for row in &padded {
            if row[col].is_ascii_digit() {
                counts[usize::from(row[col] - b'0')] += 1;
            }
        }
        for (i, row) in padded.iter().enumerate() {
            if row[col].is_ascii_digit() {
                scores[i] += counts[usize::from(row[col] - b'0')] - 1;
            }
        }
    }
    let Some(&key) = scores.first() else {
        return (0, 0);
    };
    let above = scores.iter().filter(|&&s| s > key).count();
    let ties = scores.iter().filter(|&&s| s == key).count();
    (above, above + ties - 1)
}

/// The place a slip tag names: 'wrong_tens_digit' -> 'tens',
/// 'swapped_tens_and_units_digits' -> 'tens_and_units'.
pub fn slip_place(slip: &str) -> &str {
    let rest = slip.split_once('_').map_or("", |(_, r)| r);
    rest.rsplit_once('_').map_or(rest, |(p, _)| p)
}

/// Slips of the key's written digits, each tagged by what it did, true by
/// construction:
///
/// - `wrong_<place>_digit`: one digit of the key, at that place, written as
///   another digit (no carry: every other digit is the key's);
/// - `swapped_<higher>_and_<place>_digits`: two neighbouring digits of the key
///   exchanged (never across the decimal point);
/// - `counted_<k>_over` / `counted_<k>_under`: a whole key up to 20 miscounted
///   by k = one, two or three.
///
/// Only slips that keep the key's form: as many whole digits, the sign, a
/// whole part of 0 left at 0, a fractional key fractional and a whole key
/// whole. `nearest`: at each place the smallest digit change at least `gap`
/// from the key, and the swaps; else the larger changes and the miscounts. In
/// a seeded order.
pub fn digit_slips(
    rng: &mut SplitMix64,
    key: f64,
    decimals: u32,
    gap: f64,
    nearest: bool,
) -> Vec<(f64, &'static str)> {
    if decimals > SLIP_DECIMALS || !key.is_finite() {
        return Vec::new();
    }
    let sign = if key < 0.0 { -1.0 } else { 1.0 };
    let text = fixed(key.abs(), decimals);
    let (whole_part, frac_part) = match text.split_once('.') {
        Some((w, f)) => (w, f),
        None => (text.as_str(), ""),
    };
    let digits: Vec<i32> = whole_part
        .bytes()
        .chain(frac_part.bytes())
        .map(|c| i32::from(c - b'0'))
        .collect();
    let n_whole = whole_part.len();
    let top = n_whole as i32 - 1; // the power of ten of the leading digit
    if top > HIGHEST_PLACE {
        return Vec::new();
    }
    let size: f64 = text.parse().unwrap_or(0.0);
    let nonzero = digits.iter().filter(|&&d| d != 0).count() as i32;
    let frac_nonzero = digits[n_whole..].iter().filter(|&&d| d != 0).count() as i32;
    let keeps_form = |i: usize, d: i32| -> bool {
        if i == 0 && ((n_whole > 1 && d == 0) || (decimals > 0 && whole_part == "0" && d != 0)) {
            return false; // a dropped or new leading digit; a share at 1 or more
        }
        let was = i32::from(digits[i] != 0);
        let now = i32::from(d != 0);
        if sign < 0.0 && nonzero - was + now == 0 {
            return false; // -1 slipped to 0 has lost its sign
        }
        if i >= n_whole {
            // a fractional key stays fractional, a whole one whole
            return (frac_nonzero - was + now > 0) == (frac_nonzero > 0);
        }
        true
    };
    let mut made: Vec<(f64, &'static str)> = Vec::new();
    for (i, &d0) in digits.iter().enumerate() {
        let power = top - i as i32;
        let step = pow10(power);
        if 9.0 * step < gap - 1e-12 {
            continue; // no change in this place is far enough from the key
        }
        let need = ((gap / step - 1e-9).ceil() as i32).max(1);
        let tag = WRONG[place_index(power)];
        for direction in [-1i32, 1] {
            let changes = if nearest {
                need..need + 1
            } else {
                need + 1..10
            };
            for change in changes {
                let d = d0 + direction * change;
                if !(0..=9).contains(&d) {
                    break;
                }
                if keeps_form(i, d) {
                    let value = sign * (size + f64::from(direction * change) * step);
                    made.push((value, tag));
                }
            }
        }
        if nearest && i > 0 && d0 != digits[i - 1] && power != -1 {
            // Digits i-1 and i exchanged: the higher place gains (d0 - d[i-1]) tens.
            let swap = f64::from(d0 - digits[i - 1]) * (10.0 * step - step);
            if (i - 1 > 0 || d0 != 0 || n_whole == 1) && swap.abs() >= gap - 1e-12 {
                made.push((sign * (size + swap), SWAPPED[place_index(power)]));
            }
        }
    }
    if !nearest && decimals == 0 && key.abs() <= COUNTED {
        // A small count miscounted: the one slip that may change the digit
        // count (9 counted two over is 11); one that only rewrites the units
        // digit is left to `wrong_units_digit`.
        let last = f64::from(*digits.last().unwrap_or(&0));
        for (k, over, under) in MISCOUNTED {
            for (value, name) in [(key + k, over), (key - k, under)] {
                let units = last + value.abs() - size;
                if k >= gap - 1e-12 && (value < 0.0) == (key < 0.0) && !(0.0..=9.0).contains(&units)
                {
                    made.push((value, name));
                }
            }
        }
    }
    let order = rng.permutation(made.len());
    order
        .into_iter()
        .map(|j| (round_to(made[j].0, decimals), made[j].1))
        .collect()
}

/// A number 8-45% (at least one to three gaps) to one `side` of `key`, at
/// most `room` away, whole when the key is whole, else with a fractional
/// part; None when `room` leaves no such number.
fn nearby(
    rng: &mut SplitMix64,
    key: f64,
    side: f64,
    gap: f64,
    decimals: u32,
    whole: bool,
    room: f64,
) -> Option<f64> {
    let low = gap.max(0.08 * key.abs());
    let high = (0.45 * key.abs()).max(3.0 * gap).min(room);
    if high < low {
        return None;
    }
    let value = key + side * (low + (high - low) * rng.random());
    if whole {
        return Some(value.round_ties_even());
    }
    let value = round_to(value, decimals);
    if value.fract() == 0.0 {
        // keep the key's form: nudge off the whole number
        return Some(round_to(value + side * pow10(-(decimals as i32)), decimals));
    }
    Some(value)
}

/// Each option reads back as its value, and options are `gap` apart.
pub fn verify_numbers(texts: &[String], values: &[f64], unit: &str, gap: f64) -> Option<String> {
    for (text, &value) in texts.iter().zip(values) {
        let body = if unit.is_empty() {
            text.clone()
        } else {
            text.replacen(unit, "", 1)
        };
        let read: Option<f64> = body.replace(',', "").parse().ok();
        match read {
            Some(x) if (x - value).abs() <= 1e-9 * value.abs().max(1.0) => {}
            _ => return Some(format!("option '{text}' does not show {value}")),
        }
    }
    let mut ordered = values.to_vec();
    ordered.sort_by(f64::total_cmp);
    if ordered.windows(2).any(|w| w[1] - w[0] < gap - 1e-9) {
        return Some("two options are closer than the grade's tolerance".to_string());
    }
    None
}

/// Which options a menu's digit slips may be made from.
#[derive(Clone, Copy, PartialEq, Eq)]
enum SlipsOf {
    Any,
    Key,
    Errors,
}

/// What an option on a menu is: the key, a nearby number no named error
/// makes, a named error (its index in the request), a digit slip of the key
/// or of a named error.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Tag {
    Key,
    Other,
    Named(usize),
    Slip(&'static str),
    NamedSlip(usize, &'static str),
}

type Option2 = (f64, Tag);
type Slip = (f64, &'static str);

/// The state of one question: what every menu shares.
struct Builder {
    rng: SplitMix64,
    key: f64,
    gap: f64,
    decimals: u32,
    whole: bool,
    n: usize,
    nonnegative: bool,
    probability: bool,
    low: f64,
    high: f64,
    named: Vec<Option2>,
    room_below: f64,
    room_above: f64,
    need_below: usize,
    need_above: usize,
    rank: usize,
    /// Digit slips by (base, nearest), made once per question.
    made_slips: Vec<(f64, bool, Vec<Slip>)>,
}

/// The per-menu state of `take_slip`.
#[derive(Default)]
struct SlipState {
    /// Slips still unused, by base.
    slips: Vec<(f64, Vec<Slip>)>,
    /// Bases whose farther slips are listed too.
    extended: Vec<f64>,
    /// Values made by a slip: no base for another.
    slipped: Vec<f64>,
    places: Vec<&'static str>,
}

impl Builder {
    fn usable(&self, value: f64, taken: &[Option2]) -> bool {
        if self.probability && !(0.0..=1.0).contains(&value) {
            return false;
        }
        if value < self.low - 1e-9 || value > self.high + 1e-9 {
            return false;
        }
        !(self.nonnegative && value < 0.0)
            && taken
                .iter()
                .all(|(v, _)| (value - v).abs() >= self.gap - 1e-12)
    }

    fn slipped_digits(&mut self, base: f64, nearest: bool) -> Vec<Slip> {
        if let Some((_, _, made)) = self
            .made_slips
            .iter()
            .find(|(b, near, _)| *b == base && *near == nearest)
        {
            return made.clone();
        }
        let made = digit_slips(&mut self.rng, base, self.decimals, self.gap, nearest);
        self.made_slips.push((base, nearest, made.clone()));
        made
    }

    fn count_side(&self, chosen: &[Option2], side: f64) -> usize {
        chosen
            .iter()
            .filter(|(v, _)| side * (v - self.key) > 0.0)
            .count()
    }

    /// Adds a usable digit slip on `side` (0: either); false if none. A slip in
    /// a place already slipped first (the slipped options then share their
    /// other digits, so the key is no hub), the nearest slips of every base
    /// before the farther ones.
    fn take_slip(
        &mut self,
        state: &mut SlipState,
        chosen: &mut Vec<Option2>,
        side: f64,
        slips_of: SlipsOf,
    ) -> bool {
        let bases: Vec<Option2> = chosen
            .iter()
            .filter(|(v, tag)| {
                *tag != Tag::Other
                    && !state.slipped.contains(v)
                    && (slips_of == SlipsOf::Any
                        || (slips_of == SlipsOf::Key) == (*tag == Tag::Key))
            })
            .copied()
            .collect();
        if bases.is_empty() {
            return false;
        }
        let order = if bases.len() > 1 {
            self.rng.permutation(bases.len())
        } else {
            vec![0]
        };
        let sames: &[bool] = if state.places.is_empty() {
            &[false]
        } else {
            &[true, false]
        };
        for &same in sames {
            for farther in [false, true] {
                for &b in &order {
                    let (base, tag) = bases[b];
                    let at = match state.slips.iter().position(|(x, _)| *x == base) {
                        Some(at) => at,
                        None => {
                            let made = self.slipped_digits(base, true);
                            state.slips.push((base, made));
                            state.slips.len() - 1
                        }
                    };
                    if farther && !state.extended.contains(&base) {
                        state.extended.push(base);
                        let more = self.slipped_digits(base, false);
                        state.slips[at].1.extend(more);
                    }
                    let found = state.slips[at].1.iter().position(|(made, slip)| {
                        side * (made - self.key) >= 0.0
                            && (!same || state.places.iter().any(|p| *p == slip_place(slip)))
                            && self.usable(*made, chosen)
                    });
                    if let Some(i) = found {
                        let (made, slip) = state.slips[at].1.remove(i);
                        let place = slip_place(slip);
                        if !state.places.contains(&place) {
                            state.places.push(place);
                        }
                        state.slipped.push(made);
                        let tag = match tag {
                            Tag::Named(i) => Tag::NamedSlip(i, slip),
                            _ => Tag::Slip(slip), // the key: no slip slips again
                        };
                        chosen.push((made, tag));
                        return true;
                    }
                }
            }
        }
        false
    }

    fn room(&self, side: f64) -> f64 {
        if side < 0.0 {
            self.room_below
        } else {
            self.room_above
        }
    }

    /// One menu around the key at `rank`, of at most `cap` named errors, filled
    /// with slips of the key or of errors; None when too few options.
    fn build(&mut self, cap: usize, slips_of: SlipsOf) -> Option<Vec<Option2>> {
        let n = self.n;
        let key = self.key;
        // Named errors in a random order, so each gets its turn across draws;
        // those with the key's form first (a stable sort).
        let mut ordered: Vec<Option2> = self
            .rng
            .permutation(self.named.len())
            .into_iter()
            .map(|i| self.named[i])
            .collect();
        let whole = self.whole;
        ordered.sort_by_key(|c| (c.0.fract() == 0.0) != whole);
        // Errors on a side the menu takes none from (the key the smallest or
        // the largest option) would only fill the cap and leave the menu to
        // slips of the key, which stand for no mistake.
        let (need_below, need_above) = (self.need_below, self.need_above);
        ordered.retain(|c| (c.0 < key && need_below > 0) || (c.0 > key && need_above > 0));
        ordered.truncate(cap);
        let below: Vec<Option2> = ordered.iter().filter(|c| c.0 < key).copied().collect();
        let above: Vec<Option2> = ordered.iter().filter(|c| c.0 > key).copied().collect();
        let mut chosen: Vec<Option2> = Vec::with_capacity(n + 2);
        chosen.push((key, Tag::Key));
        chosen.extend(below.iter().take(self.need_below).copied());
        chosen.extend(above.iter().take(self.need_above).copied());
        let mut state = SlipState::default();
        for (side, pool, need) in [
            (-1.0, below.len(), self.need_below),
            (1.0, above.len(), self.need_above),
        ] {
            while self.count_side(&chosen, side) < need
                && self.take_slip(&mut state, &mut chosen, side, slips_of)
            {}
            // A side that cannot take more (a small nonnegative key) leaves the
            // rest to the other side.
            for attempt in 0..80 {
                if need <= pool || self.count_side(&chosen, side) >= need {
                    break;
                }
                let room = if attempt < 40 {
                    self.room(side)
                } else {
                    f64::INFINITY
                };
                let made = nearby(
                    &mut self.rng,
                    key,
                    side,
                    self.gap,
                    self.decimals,
                    whole,
                    room,
                );
                if let Some(made) = made {
                    if self.usable(made, &chosen) {
                        chosen.push((made, Tag::Other));
                    }
                }
            }
        }
        let middle = 0 < self.rank && self.rank < n - 1;
        if middle {
            // A middle key: the other named errors fill the menu, on either side.
            let spare: Vec<Option2> = ordered
                .iter()
                .filter(|c| !chosen.contains(c))
                .copied()
                .collect();
            let room = n.saturating_sub(chosen.len());
            chosen.extend(spare.into_iter().take(room));
        }
        let slip_side = if middle {
            0.0
        } else if self.rank == 0 {
            1.0
        } else {
            -1.0
        };
        while chosen.len() < n && self.take_slip(&mut state, &mut chosen, slip_side, slips_of) {}
        for attempt in 0..200 {
            if chosen.len() >= n {
                break;
            }
            let side = if self.rank == 0 {
                1.0
            } else if self.rank == n - 1 {
                -1.0
            } else if self.rng.random() < 0.5 {
                1.0
            } else {
                -1.0
            };
            let room = if attempt < 100 {
                self.room(side)
            } else {
                f64::INFINITY
            };
            let made = nearby(
                &mut self.rng,
                key,
                side,
                self.gap,
                self.decimals,
                whole,
                room,
            );
            if let Some(made) = made {
                if self.usable(made, &chosen) {
                    chosen.push((made, Tag::Other));
                }
            }
        }
        for _ in 0..100 {
            if chosen.len() >= n {
                break;
            }
            let side = if self.rng.random() < 0.5 { 1.0 } else { -1.0 };
            let made = nearby(
                &mut self.rng,
                key,
                side,
                self.gap,
                self.decimals,
                whole,
                f64::INFINITY,
            );
            if let Some(made) = made {
                if self.usable(made, &chosen) {
                    chosen.push((made, Tag::Other));
                }
            }
        }
        let unnamed = chosen.iter().any(|c| c.1 == Tag::Other);
        if chosen.len() < n || (slips_of != SlipsOf::Any && unnamed) {
            return None; // a skewed menu is worth trying only with no unnamed numbers
        }
        Some(chosen)
    }
}

/// The options, tags and key index of a numeric question, or (`Ok(Err)`) why
/// it must be drawn again. `Err` only for unusable input.
pub fn numeric_options(req: &Request<'_>) -> Result<Outcome> {
    if req.n == 0 {
        return Err(Error::invalid("n", "a menu needs at least one option"));
    }
    if req.decimals > MAX_DECIMALS {
        return Err(Error::invalid(
            "decimals",
            format!("{} is more than {MAX_DECIMALS}", req.decimals),
        ));
    }
    if !req.value.is_finite() {
        return Err(Error::invalid("value", "the key must be a finite number"));
    }
    if req.low.is_nan() || req.high.is_nan() || req.low > req.high {
        return Err(Error::invalid(
            "low",
            format!("[{}, {}] is not a range", req.low, req.high),
        ));
    }
    if req.value < req.low - 1e-9 || req.value > req.high + 1e-9 {
        return Err(Error::invalid(
            "value",
            format!("{} lies outside [{}, {}]", req.value, req.low, req.high),
        ));
    }
    let decimals = req.decimals;
    let scaled = req.value.abs() * pow10(decimals as i32);
    if (scaled - scaled.floor() - 0.5).abs() < 1e-6 {
        // Half-way keys round differently by hand and in floating point.
        return Ok(Err("the key sits on a rounding boundary".to_string()));
    }
    let key = round_to(req.value, decimals);
    let gap = pow10(-(decimals as i32)).max(req.relative_gap * key.abs());
    let n = req.n;
    let mut b = Builder {
        rng: SplitMix64::new(req.seed),
        key,
        gap,
        decimals,
        whole: key.fract() == 0.0,
        n,
        nonnegative: req.nonnegative,
        probability: req.probability,
        low: req.low,
        high: req.high,
        named: Vec::new(),
        room_below: f64::INFINITY,
        room_above: f64::INFINITY,
        need_below: 0,
        need_above: 0,
        rank: 0,
        made_slips: Vec::new(),
    };
    let mut named: Vec<Option2> = Vec::new();
    for (i, &(made, _)) in req.named.iter().enumerate() {
        if !made.is_finite() {
            continue;
        }
        let value = round_to(made, decimals);
        if b.usable(value, &[(key, Tag::Key)]) && b.usable(value, &named) {
            named.push((value, Tag::Named(i)));
        }
    }
    let digits = whole_digits(key);
    // Only named errors with as many digits as the key, which must not stand
    // out as the long (or short) one.
    named.retain(|c| whole_digits(c.0) == digits);
    b.named = named;
    if key >= 0.0 {
        let low = if digits == 1 {
            0.0
        } else {
            pow10(digits as i32 - 1)
        };
        b.room_below = key - low;
        b.room_above = pow10(digits as i32) - 0.5 - key;
    }
    b.room_below = b.room_below.min(key - req.low);
    b.room_above = b.room_above.min(req.high - key);
    // The key is the smallest option in 1/n of the draws, the largest in 1/n,
    // else it has at least one option on each side.
    let rank = b.rng.below(n);
    b.rank = rank;
    b.need_below = if rank == n - 1 { n - 1 } else { rank.min(1) };
    b.need_above = if rank == 0 {
        n - 1
    } else {
        (n - 1 - rank).min(1)
    };

    // The key's place among the options by shared digits is drawn uniformly
    // too, and the menu built up to MENU_TRIES times until the key holds it.
    // Every other try leans the menu towards the target: for a central key,
    // slips of the key only; for an outlying one, fewer named errors and slips
    // of those only, so the centre moves to an error's cluster.
    let target = b.rng.below(n);
    let lean = if 2 * target + 1 < n {
        SlipsOf::Key
    } else if 2 * target + 1 > n {
        SlipsOf::Errors
    } else {
        SlipsOf::Any
    };
    let mut chosen: Option<Vec<Option2>> = None;
    let mut miss = n;
    for attempt in 0..MENU_TRIES {
        let mode = if attempt % 2 == 1 { lean } else { SlipsOf::Any };
        let cap = if mode == SlipsOf::Any {
            n
        } else {
            n.saturating_sub(3).max(1)
        };
        let Some(menu) = b.build(cap, mode) else {
            continue;
        };
        let values: Vec<f64> = menu.iter().map(|c| c.0).collect();
        let (low, high) = centre_rank(&values, decimals);
        let off = low.saturating_sub(target).max(target.saturating_sub(high));
        if off < miss {
            chosen = Some(menu);
            miss = off;
        }
        if off == 0 {
            break;
        }
    }
    let Some(chosen) = chosen else {
        return Ok(Err("could not find enough distinct distractors".to_string()));
    };
    let order = b.rng.permutation(chosen.len());
    let values: Vec<f64> = order.iter().map(|&i| chosen[i].0).collect();
    let texts: Vec<String> = if values.iter().all(|v| v.fract() == 0.0) {
        values.iter().map(|&v| whole_amount(v, req.unit)).collect()
    } else {
        // one precision for every option: cents on the key alone would give it away
        values
            .iter()
            .map(|&v| fixed_amount(v, req.unit, decimals))
            .collect()
    };
    let tags: Vec<String> = order
        .iter()
        .map(|&i| match chosen[i].1 {
            Tag::Key => KEY_TAG.to_string(),
            Tag::Other => FALLBACK_TAG.to_string(),
            Tag::Named(j) => req.named[j].1.to_string(),
            Tag::Slip(slip) => slip.to_string(),
            Tag::NamedSlip(j, slip) => format!("{}+{slip}", req.named[j].1),
        })
        .collect();
    if let Some(problem) = verify_numbers(&texts, &values, req.unit, gap) {
        return Ok(Err(problem));
    }
    let correct = order.iter().position(|&i| i == 0).unwrap_or(0);
    Ok(Ok(Menu {
        texts,
        tags,
        values,
        correct,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(value: f64, decimals: u32, named: &[(f64, &str)], seed: u64) -> Menu {
        let req = Request {
            value,
            decimals,
            relative_gap: 0.02,
            nonnegative: true,
            probability: false,
            unit: "$",
            low: f64::NEG_INFINITY,
            high: f64::INFINITY,
            n: 4,
            named,
            seed,
        };
        numeric_options(&req).unwrap().unwrap()
    }

    #[test]
    fn rounding_and_formatting_follow_python() {
        assert_eq!(round_to(2.675, 2), 2.67); // 2.67499999... in binary
        assert_eq!(round_to(0.125, 2), 0.12); // an exact tie: to even
        assert_eq!(round_to(0.375, 2), 0.38);
        assert_eq!(fixed(0.5, 0), "0");
        assert_eq!(fixed(1.5, 0), "2");
        assert_eq!(2.5f64.round_ties_even(), 2.0);
        assert_eq!(fixed_amount(-1234567.5, "$", 2), "-$1,234,567.50");
        assert_eq!(fixed_amount(20.0, "$", 2), "$20.00");
        assert_eq!(whole_amount(-1250.0, "$"), "-$1,250");
        assert_eq!(whole_amount(-0.0, "$"), "$0");
        assert_eq!(whole_amount(999.0, ""), "999");
        assert_eq!(whole_digits(9.85), 1);
        assert_eq!(whole_digits(-123.4), 3);
    }

    #[test]
    fn the_fast_rounding_is_the_correctly_rounded_one() {
        let slow = |x: f64, d: u32| -> f64 { format!("{:.*}", d as usize, x).parse().unwrap() };
        let mut rng = SplitMix64::new(3);
        for i in 0..200_000 {
            let d = (i % 5) as u32;
            let scale = [1.0, 10.0, 1e3, 1e5, 1e8][i % 5];
            // Near-ties too: k + 1/2 at the last place, nudged by an ulp or not.
            let x = match i % 3 {
                0 => (rng.random() - 0.3) * scale,
                1 => ((rng.below(1_000_000) as f64) + 0.5) / 10f64.powi(d as i32),
                _ => (rng.random() * 1e4).round() / 10f64.powi(d as i32 + 1),
            };
            assert_eq!(round_to(x, d).to_bits(), slow(x, d).to_bits(), "{x} {d}");
        }
    }

    #[test]
    fn slips_match_the_python_examples() {
        let mut rng = SplitMix64::new(0);
        let near = digit_slips(&mut rng, 9.0, 0, 1.0, true);
        assert_eq!(near, vec![(8.0, "wrong_units_digit")]);
        let far = digit_slips(&mut rng, 9.0, 0, 1.0, false);
        let tag_of = |v: f64| far.iter().find(|c| c.0 == v).map(|c| c.1);
        assert_eq!(tag_of(10.0), Some("counted_one_over"));
        assert_eq!(tag_of(11.0), Some("counted_two_over"));
        assert_eq!(tag_of(5.0), Some("wrong_units_digit"));
        assert_eq!(tag_of(6.0), Some("wrong_units_digit"));
        let mut got = digit_slips(&mut rng, 47.0, 0, 2.35, true);
        got.sort_by(|a, b| a.0.total_cmp(&b.0));
        let want = [
            (37.0, "wrong_tens_digit"),
            (44.0, "wrong_units_digit"),
            (57.0, "wrong_tens_digit"),
            (74.0, "swapped_tens_and_units_digits"),
        ];
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(want) {
            assert_eq!(*g, w);
        }
        for nearest in [true, false] {
            for (v, _) in digit_slips(&mut rng, 0.375, 3, 0.02, nearest) {
                assert!((0.0..1.0).contains(&v));
            }
        }
        assert_eq!(slip_place("wrong_tens_digit"), "tens");
        assert_eq!(
            slip_place("swapped_tens_and_units_digits"),
            "tens_and_units"
        );
        assert_eq!(slip_place("counted_one_over"), "one");
    }

    #[test]
    fn centre_rank_counts_shared_digits() {
        // 12 shares its tens with 15 and 19; 15 its tens too; 7 nothing.
        assert_eq!(centre_rank(&[12.0, 15.0, 19.0], 0), (0, 2));
        assert_eq!(centre_rank(&[7.0, 15.0, 19.0], 0), (2, 2));
        assert_eq!(centre_rank(&[], 0), (0, 0));
    }

    #[test]
    fn menus_hold_their_invariants() {
        let named = [(110.0, "forgot_tax"), (f64::NAN, "bad"), (95.5, "half")];
        for seed in 0..500 {
            let menu = request(103.0, 2, &named, seed);
            assert_eq!(menu.texts.len(), 4);
            assert_eq!(menu.tags.iter().filter(|t| *t == KEY_TAG).count(), 1);
            assert_eq!(menu.tags[menu.correct], KEY_TAG);
            assert!(menu.values.iter().all(|v| *v >= 0.0));
            let mut sorted = menu.values.clone();
            sorted.sort_by(f64::total_cmp);
            assert!(sorted
                .windows(2)
                .all(|w| w[1] - w[0] >= 103.0 * 0.02 - 1e-9));
            assert!(!menu.tags.iter().any(|t| t == "bad"));
        }
        // Deterministic per seed.
        assert_eq!(request(12.34, 2, &named, 9), request(12.34, 2, &named, 9));
    }

    #[test]
    fn options_stay_within_the_answers_range() {
        // An expectation of outcomes 12, 59 and 23: the sum (94) and anything
        // else outside [12, 59] would be struck on its face.
        let named = [
            (94.0, "forgot_probability"),
            (31.33, "unweighted_mean"),
            (59.0, "best_outcome"),
        ];
        let base = Request {
            value: 54.85,
            decimals: 2,
            relative_gap: 0.02,
            nonnegative: true,
            probability: false,
            unit: "",
            low: 12.0,
            high: 59.0,
            n: 4,
            named: &named,
            seed: 0,
        };
        let mut drawn_again = 0;
        for seed in 0..300 {
            match numeric_options(&Request {
                seed,
                ..base.clone()
            })
            .unwrap()
            {
                Ok(menu) => {
                    assert!(
                        menu.values.iter().all(|v| (12.0..=59.0).contains(v)),
                        "{menu:?}"
                    );
                    assert!(!menu.tags.iter().any(|t| t == "forgot_probability"));
                }
                Err(_) => drawn_again += 1,
            }
        }
        assert!(drawn_again < 300);
        // A key outside its bounds, or bounds that are no range: input errors.
        let bad = Request {
            value: 60.0,
            decimals: 0,
            ..base.clone()
        };
        assert!(numeric_options(&bad).is_err());
        assert!(numeric_options(&Request { low: 70.0, ..bad }).is_err());
    }

    #[test]
    fn keys_on_a_rounding_boundary_are_drawn_again() {
        let req = Request {
            value: 2.5,
            decimals: 0,
            relative_gap: 0.05,
            nonnegative: false,
            probability: false,
            unit: "",
            low: f64::NEG_INFINITY,
            high: f64::INFINITY,
            n: 4,
            named: &[],
            seed: 1,
        };
        assert!(numeric_options(&req).unwrap().is_err());
        let bad = Request { n: 0, ..req };
        assert!(numeric_options(&bad).is_err());
    }
}
