//! Bayes' rule.

use crate::error::{Error, Result};

/// Probabilities may miss consistency (e.g. a joint exceeding a marginal) by
/// this much before the inputs are rejected.
const SLACK: f64 = 1e-9;

fn probability(field: &str, p: f64) -> Result<f64> {
    if p.is_finite() && (0.0..=1.0).contains(&p) {
        Ok(p)
    } else {
        Err(Error::invalid(field, format!("{p} is not a probability")))
    }
}

/// P(H | E) = P(E | H) · P(H) / P(E), given the three numbers on the right.
/// Rejects P(E) = 0 and inputs whose joint P(E | H) · P(H) exceeds P(E).
pub fn bayes_rule(prior: f64, likelihood: f64, evidence: f64) -> Result<f64> {
    let joint = probability("prior", prior)? * probability("likelihood", likelihood)?;
    if probability("evidence", evidence)? == 0.0 {
        return Err(Error::invalid(
            "evidence",
            "P(E) = 0: the posterior is undefined",
        ));
    }
    if joint > evidence + SLACK {
        return Err(Error::invalid(
            "evidence",
            format!("P(E) = {evidence} is below P(E and H) = {joint}"),
        ));
    }
    Ok((joint / evidence).min(1.0))
}

/// Posterior over exhaustive, exclusive hypotheses: `priors[h]` (summing to
/// 1) and `likelihoods[h]` = P(E | h); P(E) is the total probability.
pub fn posterior(priors: &[f64], likelihoods: &[f64]) -> Result<Vec<f64>> {
    if priors.is_empty() || priors.len() != likelihoods.len() {
        return Err(Error::invalid(
            "likelihoods",
            format!(
                "{} likelihoods for {} hypotheses",
                likelihoods.len(),
                priors.len()
            ),
        ));
    }
    for &p in priors {
        probability("priors", p)?;
    }
    for &l in likelihoods {
        probability("likelihoods", l)?;
    }
    let total: f64 = priors.iter().sum();
    if (total - 1.0).abs() > SLACK {
        return Err(Error::invalid("priors", format!("sum to {total}, not 1")));
    }
    let evidence: f64 = priors.iter().zip(likelihoods).map(|(p, l)| p * l).sum();
    if evidence == 0.0 {
        return Err(Error::invalid(
            "likelihoods",
            "the evidence has probability 0",
        ));
    }
    Ok(priors
        .iter()
        .zip(likelihoods)
        .map(|(p, l)| p * l / evidence)
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bayes_example_from_the_paper() {
        // P(try) = .55, P(try | lower-ranked) = .79, P(lower-ranked) = .27
        // -> P(lower-ranked | try) = .79 · .27 / .55 ≈ 0.388.
        let p = bayes_rule(0.27, 0.79, 0.55).unwrap();
        assert!((p - 0.3878).abs() < 1e-4, "{p}");
    }

    #[test]
    fn posterior_over_hypotheses() {
        // Disease prevalence 1%, test sensitivity 90%, false positives 5%.
        let post = posterior(&[0.01, 0.99], &[0.9, 0.05]).unwrap();
        assert!((post[0] - 0.009 / (0.009 + 0.0495)).abs() < 1e-12);
        assert!((post.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn inconsistent_inputs_are_rejected() {
        assert!(bayes_rule(0.5, 0.5, 0.0).is_err());
        assert!(bayes_rule(0.9, 0.9, 0.5).is_err());
        assert!(bayes_rule(1.2, 0.5, 0.5).is_err());
        assert!(bayes_rule(0.5, f64::NAN, 0.5).is_err());
        assert!(posterior(&[0.5, 0.4], &[0.1, 0.1]).is_err());
        assert!(posterior(&[1.0], &[0.0]).is_err());
        assert!(posterior(&[1.0], &[0.5, 0.5]).is_err());
        assert!(posterior(&[1.0], &[1.5]).is_err());
    }
}
