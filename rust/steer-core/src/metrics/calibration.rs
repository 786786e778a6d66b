//! Calibration of option probabilities: confidence, Brier, EPA, ECE.
//!
//! Probabilities are renormalised over the options before use (the
//! "conditioning" convention); the mass they missed is reported separately.
//! A NaN anywhere, or an all-zero distribution, makes the row unusable for
//! calibration (counted, never scored as zero); values outside [0, 1] are bad
//! input.

use crate::alloc::{try_vec, try_with_capacity};
use crate::error::Result;
use crate::metrics::input::row_error;

/// What one keyed row with usable probabilities contributes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CalibrationRow {
    /// Probability of the top option.
    pub conf: f64,
    /// Whether the top option (first of ties) is the key.
    pub top_correct: bool,
    /// Probability on the key.
    pub p_correct: f64,
    /// (1/|O|) Σ_o (p(o) − 1[o is the key])².
    pub brier: f64,
    /// |1 − Σ p| before renormalising.
    pub invalid_mass: f64,
}

/// Calibration facts of one row, `None` when its probabilities are unusable.
///
/// One pass over the raw probabilities gathers Σp, Σp², the maximum and its
/// (first) position; with q = p/Σp the Brier sum is Σq² − 2q_key + 1.
#[inline]
pub fn calibrate(probs: &[f64], correct: usize, row: usize) -> Result<Option<CalibrationRow>> {
    let (mut sum, mut squares) = (0.0, 0.0);
    let (mut top, mut best) = (0usize, f64::NEG_INFINITY);
    let mut nan = false;
    for (o, &p) in probs.iter().enumerate() {
        if !(0.0..=1.0).contains(&p) {
            if p.is_nan() {
                nan = true;
                continue;
            }
            return Err(row_error(
                "option_probs",
                row,
                format!("probability {p} is outside [0, 1]"),
            ));
        }
        sum += p;
        squares += p * p;
        if p > best {
            best = p;
            top = o;
        }
    }
    if nan || sum <= 0.0 {
        return Ok(None);
    }
    // Divide (not multiply by 1/Σp) so a confidence on a bin edge lands in the
    // same bin as p/Σp computed by anyone else.
    let conf = best / sum;
    let p_correct = probs[correct] / sum;
    let brier = (squares / (sum * sum) - 2.0 * p_correct + 1.0).max(0.0) / probs.len() as f64;
    Ok(Some(CalibrationRow {
        conf,
        top_correct: top == correct,
        p_correct,
        brier,
        invalid_mass: (1.0 - sum).abs(),
    }))
}

/// Equal-width bin of a confidence in [0, 1]: `floor(conf · bins)`, with 1.0
/// in the last bin.
#[inline]
pub fn bin_of(conf: f64, bins: usize) -> usize {
    ((conf * bins as f64) as usize).min(bins - 1)
}

/// ECE from equal-width bin sums: Σ_b |Σacc_b − Σconf_b| / N.
pub fn ece_from_bins(n: &[u64], conf: &[f64], acc: &[u64]) -> f64 {
    let total: u64 = n.iter().sum();
    if total == 0 {
        return f64::NAN;
    }
    conf.iter()
        .zip(acc)
        .map(|(c, &a)| (a as f64 - c).abs())
        .sum::<f64>()
        / total as f64
}

/// ECE with equal-mass bins: rows sorted by confidence, ties wrong before
/// right (so the result does not depend on row order), and cut into `bins`
/// runs of sizes ⌊(b+1)·n/M⌋ − ⌊b·n/M⌋. NaN for no rows.
pub fn ece_equal_mass(conf: &[f64], top_correct: &[bool], bins: usize) -> f64 {
    let n = conf.len();
    if n == 0 || bins == 0 {
        return f64::NAN;
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| {
        conf[a]
            .total_cmp(&conf[b])
            .then(top_correct[a].cmp(&top_correct[b]))
    });
    let mut total = 0.0;
    for b in 0..bins {
        let (lo, hi) = (b * n / bins, (b + 1) * n / bins);
        let (mut c, mut a) = (0.0, 0.0);
        for &i in &order[lo..hi] {
            c += conf[i];
            a += top_correct[i] as u8 as f64;
        }
        total += (a - c).abs();
    }
    total / n as f64
}

/// Equal-mass ECE per group of a response table (keyed, answered rows with
/// usable probabilities; NaN for groups without any).
pub fn ece_equal_mass_by_group(
    resp: &crate::metrics::input::Responses<'_>,
    bins: usize,
) -> Result<Vec<f64>> {
    use crate::metrics::input::{NO_ANSWER, NO_KEY};
    resp.check_lengths()?;
    let mut conf: Vec<Vec<f64>> = try_vec("n_groups", resp.n_groups, Vec::new())?;
    let mut right: Vec<Vec<bool>> = try_vec("n_groups", resp.n_groups, Vec::new())?;
    let mut out = try_with_capacity("n_groups", resp.n_groups)?;
    if let Some(p) = resp.probs {
        for i in 0..resp.len() {
            resp.check_row(i)?;
            let (c, o) = (resp.correct[i], resp.chosen[i]);
            if c == NO_KEY || o == NO_ANSWER || !p.is_valid(i) {
                continue;
            }
            let (lo, hi) = (p.offsets[i] as usize, p.offsets[i + 1] as usize);
            if hi - lo != resp.n_options[i] as usize {
                return Err(row_error(
                    "option_probs",
                    i,
                    "probabilities and options differ in number",
                ));
            }
            if let Some(r) = calibrate(&p.values[lo..hi], c as usize, i)? {
                let g = resp.group[i] as usize;
                conf[g].push(r.conf);
                right[g].push(r.top_correct);
            }
        }
    }
    out.extend(
        conf.iter()
            .zip(&right)
            .map(|(c, r)| ece_equal_mass(c, r, bins)),
    );
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_row_by_hand() {
        // p = (0.5, 0.3, 0.2), key 1: conf 0.5 on option 0 (wrong), EPA 0.3,
        // Brier ((0.5)² + (0.7)² + (0.2)²) / 3 = 0.78 / 3.
        let r = calibrate(&[0.5, 0.3, 0.2], 1, 0).unwrap().unwrap();
        assert_eq!(r.conf, 0.5);
        assert!(!r.top_correct);
        assert!((r.p_correct - 0.3).abs() < 1e-15);
        assert!((r.brier - 0.78 / 3.0).abs() < 1e-15);
        assert!(r.invalid_mass < 1e-15);
    }

    #[test]
    fn renormalises_and_reports_missing_mass() {
        let r = calibrate(&[0.4, 0.4], 0, 0).unwrap().unwrap();
        assert_eq!(r.conf, 0.5);
        assert!(r.top_correct, "ties go to the first option");
        assert!((r.invalid_mass - 0.2).abs() < 1e-15);
    }

    #[test]
    fn unusable_and_bad_probabilities() {
        assert_eq!(calibrate(&[f64::NAN, 0.5], 0, 0).unwrap(), None);
        assert_eq!(calibrate(&[0.0, 0.0], 0, 0).unwrap(), None);
        let err = calibrate(&[1.5, 0.0], 0, 7).unwrap_err();
        assert_eq!(
            err.to_string(),
            "option_probs: row 7: probability 1.5 is outside [0, 1]"
        );
        assert!(calibrate(&[f64::INFINITY, 0.0], 0, 0).is_err());
        assert!(calibrate(&[-0.1, 0.0], 0, 0).is_err());
    }

    #[test]
    fn ece_from_its_definition() {
        // Two bins (M = 2). Bin 0: confidences 0.3, 0.4, top correct once →
        // |1 − 0.7| = 0.3. Bin 1: 0.9, 1.0, both correct → |2 − 1.9| = 0.1.
        // ECE = (0.3 + 0.1) / 4 = 0.1.
        let conf = [0.3, 0.4, 0.9, 1.0];
        let acc = [true, false, true, true];
        let mut n = [0u64; 2];
        let mut c = [0.0; 2];
        let mut a = [0u64; 2];
        for i in 0..4 {
            let b = bin_of(conf[i], 2);
            n[b] += 1;
            c[b] += conf[i];
            a[b] += acc[i] as u64;
        }
        assert_eq!(n, [2, 2]);
        assert!((ece_from_bins(&n, &c, &a) - 0.1).abs() < 1e-12);
        // Equal-mass bins split the same sorted rows in halves here.
        assert!((ece_equal_mass(&conf, &acc, 2) - 0.1).abs() < 1e-12);
        assert!(ece_from_bins(&[0, 0], &[0.0, 0.0], &[0, 0]).is_nan());
    }

    #[test]
    fn bins_cover_the_unit_interval() {
        assert_eq!(bin_of(0.0, 10), 0);
        assert_eq!(bin_of(0.1, 10), 1);
        assert_eq!(bin_of(0.999, 10), 9);
        assert_eq!(bin_of(1.0, 10), 9);
    }

    #[test]
    fn groups_past_memory_are_an_error_not_an_abort() {
        let r = crate::metrics::Responses::empty(1 << 60);
        let err = ece_equal_mass_by_group(&r, 10).unwrap_err();
        assert!(matches!(err, crate::Error::TooLarge { .. }), "{err}");
    }
}
