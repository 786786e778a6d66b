//! Lotteries given as parallel slices of outcomes and probabilities.

use crate::error::{Error, Result};

/// Probabilities may miss summing to one by this much (decimal inputs such as
/// 0.1 + 0.2 + 0.7 do not sum to exactly 1.0 in binary).
pub const PROB_TOLERANCE: f64 = 1e-9;

fn check(values: &[f64], probs: &[f64]) -> Result<()> {
    if values.is_empty() {
        return Err(Error::invalid(
            "values",
            "a lottery needs at least one outcome",
        ));
    }
    if values.len() != probs.len() {
        return Err(Error::invalid(
            "probs",
            format!(
                "{} probabilities for {} outcomes",
                probs.len(),
                values.len()
            ),
        ));
    }
    if let Some(i) = values.iter().position(|v| !v.is_finite()) {
        return Err(Error::invalid(
            "values",
            format!("outcome {i} is not finite"),
        ));
    }
    if let Some(i) = probs
        .iter()
        .position(|p| !(p.is_finite() && (0.0..=1.0).contains(p)))
    {
        return Err(Error::invalid(
            "probs",
            format!("probability {i} ({}) is outside [0, 1]", probs[i]),
        ));
    }
    let total: f64 = probs.iter().sum();
    if (total - 1.0).abs() > PROB_TOLERANCE {
        return Err(Error::invalid(
            "probs",
            format!("probabilities sum to {total}, not 1"),
        ));
    }
    Ok(())
}

/// Σ p·x for one lottery.
pub fn expected_value(values: &[f64], probs: &[f64]) -> Result<f64> {
    check(values, probs)?;
    Ok(values.iter().zip(probs).map(|(x, p)| x * p).sum())
}

/// Expected values of many lotteries stored back to back; lottery `i` spans
/// `offsets[i]..offsets[i + 1]` of `values` and `probs`.
pub fn expected_values(values: &[f64], probs: &[f64], offsets: &[usize]) -> Result<Vec<f64>> {
    if offsets.is_empty() || offsets[0] != 0 || *offsets.last().unwrap() != values.len() {
        return Err(Error::invalid(
            "offsets",
            "must start at 0 and end at the number of outcomes",
        ));
    }
    offsets
        .windows(2)
        .enumerate()
        .map(|(i, w)| {
            if w[0] > w[1] {
                return Err(Error::invalid(
                    "offsets",
                    format!("decrease at lottery {i}"),
                ));
            }
            expected_value(&values[w[0]..w[1]], &probs[w[0]..w[1]]).map_err(|e| match e {
                Error::InvalidInput { field, message } => Error::InvalidInput {
                    field,
                    message: format!("lottery {i}: {message}"),
                },
                other => other,
            })
        })
        .collect()
}

/// The lotteries (indices) with the highest expected value, ties within
/// `PROB_TOLERANCE` relative to the best all reported.
pub fn argmax_expected_value(
    values: &[f64],
    probs: &[f64],
    offsets: &[usize],
) -> Result<Vec<usize>> {
    let evs = expected_values(values, probs, offsets)?;
    let best = evs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let slack = PROB_TOLERANCE * best.abs().max(1.0);
    Ok((0..evs.len()).filter(|&i| evs[i] >= best - slack).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recovery_example_from_the_paper() {
        // 40% recovery worth 50, otherwise 15: 0.4·50 + 0.6·15 = 29.
        assert!((expected_value(&[50.0, 15.0], &[0.4, 0.6]).unwrap() - 29.0).abs() < 1e-12);
    }

    #[test]
    fn maximize_example_from_the_paper() {
        // $75,972 for sure vs $69,183 + 55.34% × $15,882 (≈ $77,972): the second.
        let values = [75_972.0, 69_183.0 + 15_882.0, 69_183.0];
        let probs = [1.0, 0.5534, 0.4466];
        let best = argmax_expected_value(&values, &probs, &[0, 1, 3]).unwrap();
        assert_eq!(best, vec![1]);
        let evs = expected_values(&values, &probs, &[0, 1, 3]).unwrap();
        assert!((evs[1] - 77_972.0).abs() < 1.0, "{}", evs[1]);
    }

    #[test]
    fn bad_lotteries_are_rejected() {
        assert!(expected_value(&[], &[]).is_err());
        assert!(expected_value(&[1.0], &[0.5])
            .unwrap_err()
            .to_string()
            .contains("sum to 0.5"));
        assert!(expected_value(&[1.0, 2.0], &[1.5, -0.5]).is_err());
        assert!(expected_value(&[f64::INFINITY], &[1.0]).is_err());
        assert!(expected_value(&[1.0], &[1.0, 0.0]).is_err());
        let err = expected_values(&[1.0, 2.0], &[1.0, 0.7], &[0, 1, 2]).unwrap_err();
        assert!(err.to_string().contains("lottery 1"), "{err}");
        assert!(expected_values(&[1.0], &[1.0], &[0, 2]).is_err());
        assert!(expected_values(&[1.0], &[1.0], &[1, 1]).is_err());
    }

    #[test]
    fn decimal_probabilities_sum_within_tolerance() {
        assert!(expected_value(&[1.0, 2.0, 3.0], &[0.1, 0.2, 0.7]).is_ok());
    }
}
