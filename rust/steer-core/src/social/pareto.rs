//! Pareto dominance, over rankings (ordinal) and over utility vectors
//! (cardinal).

use super::profile::Profile;
use crate::error::{Error, Result};

/// `m x m` matrix: `[a * m + b]` is true when every voter ranks `a` above `b`.
/// Rankings are strict, so this is also strict Pareto dominance. An empty
/// electorate (all counts zero) makes no comparisons.
pub fn pareto_dominance(profile: &Profile) -> Vec<bool> {
    let m = profile.candidates();
    let pos = profile.positions();
    let active: Vec<usize> = profile
        .ballots()
        .enumerate()
        .filter(|(_, (_, count))| *count > 0)
        .map(|(i, _)| i)
        .collect();
    let mut out = vec![false; m * m];
    if active.is_empty() {
        return out;
    }
    for a in 0..m {
        for b in 0..m {
            out[a * m + b] = a != b && active.iter().all(|&i| pos[i * m + a] < pos[i * m + b]);
        }
    }
    out
}

/// Whether utility vector `a` Pareto-dominates `b`: at least as good for
/// every agent and strictly better for one.
pub fn pareto_dominates_vector(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| x >= y)
        && a.iter().zip(b).any(|(x, y)| x > y)
}

/// For `outcomes x agents` utilities (row-major), whether each outcome is
/// Pareto optimal (no other outcome dominates it).
pub fn pareto_optimal(utilities: &[f64], agents: usize) -> Result<Vec<bool>> {
    if agents == 0 || utilities.len() % agents != 0 {
        return Err(Error::invalid(
            "utilities",
            format!(
                "expected outcomes x {agents} numbers, got {}",
                utilities.len()
            ),
        ));
    }
    if utilities.iter().any(|u| !u.is_finite()) {
        return Err(Error::invalid("utilities", "utilities must be finite"));
    }
    let rows: Vec<&[f64]> = utilities.chunks(agents).collect();
    Ok(rows
        .iter()
        .map(|b| !rows.iter().any(|a| pareto_dominates_vector(a, b)))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unanimous_preference_dominates() {
        // Everyone ranks A above C; B vs C splits.
        let r = [0, 1, 2, 0, 2, 1];
        let p = Profile::new(3, &r, &[2, 1]).unwrap();
        let d = pareto_dominance(&p);
        assert!(d[2]); // A over C
        assert!(d[1]); // A over B too (both rank A first)
        assert!(!d[5] && !d[7]); // B vs C neither way
        assert!(!d[0]);
        // A ranking held by nobody does not count.
        let p = Profile::new(3, &r, &[2, 0]).unwrap();
        assert!(pareto_dominance(&p)[5]);
        let p = Profile::new(3, &r, &[0, 0]).unwrap();
        assert!(pareto_dominance(&p).iter().all(|d| !d));
    }

    #[test]
    fn utility_vectors() {
        assert!(pareto_dominates_vector(&[2., 3.], &[2., 1.]));
        assert!(!pareto_dominates_vector(&[2., 3.], &[2., 3.]));
        assert!(!pareto_dominates_vector(&[3., 1.], &[2., 3.]));
        assert!(!pareto_dominates_vector(&[3.], &[2., 3.]));
        let u = [1., 1., 2., 2., 3., 0., 2., 1.];
        assert_eq!(
            pareto_optimal(&u, 2).unwrap(),
            vec![false, true, true, false]
        );
        assert!(pareto_optimal(&u[..3], 2).is_err());
        assert!(pareto_optimal(&[f64::NAN, 1.], 2).is_err());
        assert!(pareto_optimal(&u, 0).is_err());
    }
}
