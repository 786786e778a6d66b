//! A preference profile: distinct strict rankings, each with the number of
//! voters who hold it.

use crate::error::{Error, Result};

/// A validated profile over `candidates` candidates: `rankings` holds `k`
/// complete rankings (best first) back to back, `counts[i]` voters hold
/// ranking `i`.
#[derive(Debug, Clone, Copy)]
pub struct Profile<'a> {
    candidates: usize,
    rankings: &'a [usize],
    counts: &'a [u64],
}

/// Scores of every candidate and the candidates with the top score.
#[derive(Debug, Clone, PartialEq)]
pub struct Tally<T> {
    pub scores: Vec<T>,
    /// All candidates sharing the highest score, in increasing order.
    pub winners: Vec<usize>,
}

/// The indices of the largest values (all of them when tied).
pub fn winners<T: PartialOrd + Copy>(scores: &[T]) -> Vec<usize> {
    let Some(mut best) = scores.first().copied() else {
        return Vec::new();
    };
    for &s in scores {
        if s > best {
            best = s;
        }
    }
    (0..scores.len()).filter(|&i| scores[i] == best).collect()
}

impl<'a> Profile<'a> {
    /// Rankings must be complete and strict (a permutation of the
    /// candidates): Borda and pairwise counts are ambiguous otherwise.
    pub fn new(candidates: usize, rankings: &'a [usize], counts: &'a [u64]) -> Result<Self> {
        if candidates == 0 {
            return Err(Error::invalid("rankings", "need at least one candidate"));
        }
        if rankings.len() != counts.len() * candidates {
            return Err(Error::invalid(
                "rankings",
                format!(
                    "{} counts need {} x {candidates} ranked candidates, got {}",
                    counts.len(),
                    counts.len(),
                    rankings.len()
                ),
            ));
        }
        let mut seen = vec![usize::MAX; candidates];
        for (i, ranking) in rankings.chunks(candidates).enumerate() {
            for &c in ranking {
                if c >= candidates || seen[c] == i {
                    return Err(Error::invalid(
                        "rankings",
                        format!(
                            "ranking {i} must list each of the {candidates} candidates once \
                             (found {c})"
                        ),
                    ));
                }
                seen[c] = i;
            }
        }
        Ok(Profile {
            candidates,
            rankings,
            counts,
        })
    }

    pub fn candidates(&self) -> usize {
        self.candidates
    }

    /// Total number of voters.
    pub fn voters(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// (ranking, count) pairs.
    pub fn ballots(&self) -> impl Iterator<Item = (&'a [usize], u64)> + '_ {
        self.rankings
            .chunks(self.candidates)
            .zip(self.counts.iter().copied())
    }

    /// Position (0 = best) of every candidate in each ranking:
    /// `positions[i * m + c]`.
    pub fn positions(&self) -> Vec<usize> {
        let m = self.candidates;
        let mut pos = vec![0; self.rankings.len()];
        for (i, ranking) in self.rankings.chunks(m).enumerate() {
            for (place, &c) in ranking.iter().enumerate() {
                pos[i * m + c] = place;
            }
        }
        pos
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validation_and_helpers() {
        let r = [0, 1, 2, 2, 1, 0];
        let p = Profile::new(3, &r, &[4, 1]).unwrap();
        assert_eq!(p.voters(), 5);
        assert_eq!(p.positions(), vec![0, 1, 2, 2, 1, 0]);
        assert_eq!(p.ballots().count(), 2);
        assert!(Profile::new(3, &[0, 1, 1], &[1]).is_err());
        assert!(Profile::new(3, &[0, 1, 3], &[1]).is_err());
        assert!(Profile::new(3, &[0, 1], &[1]).is_err());
        assert!(Profile::new(0, &[], &[]).is_err());
        assert!(Profile::new(2, &[], &[]).is_ok());
        assert_eq!(winners(&[1, 3, 3, 0]), vec![1, 2]);
        assert_eq!(winners::<u64>(&[]), Vec::<usize>::new());
    }
}
