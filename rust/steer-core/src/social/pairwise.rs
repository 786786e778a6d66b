//! Pairwise majority comparisons and the Condorcet winner.

use super::profile::Profile;

/// `m x m` matrix: entry `[a * m + b]` counts the voters who rank `a` above
/// `b` (the diagonal is 0).
pub fn majority_matrix(profile: &Profile) -> Vec<u64> {
    let m = profile.candidates();
    let pos = profile.positions();
    let mut n = vec![0u64; m * m];
    for (i, (_, count)) in profile.ballots().enumerate() {
        let p = &pos[i * m..(i + 1) * m];
        for a in 0..m {
            for b in 0..m {
                if p[a] < p[b] {
                    n[a * m + b] += count;
                }
            }
        }
    }
    n
}

/// The candidate who beats every other one by a strict majority, if any
/// (at most one can).
pub fn condorcet_winner(profile: &Profile) -> Option<usize> {
    let m = profile.candidates();
    let n = majority_matrix(profile);
    (0..m).find(|&a| (0..m).all(|b| a == b || n[a * m + b] > n[b * m + a]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn borda_profile_has_condorcet_winner_a() {
        let r = [0, 1, 2, 1, 0, 2, 0, 2, 1];
        let p = Profile::new(3, &r, &[413, 176, 123]).unwrap();
        let n = majority_matrix(&p);
        assert_eq!(n, vec![0, 536, 712, 176, 0, 589, 0, 123, 0]);
        assert_eq!(condorcet_winner(&p), Some(0));
    }

    #[test]
    fn condorcet_cycle_has_no_winner() {
        let r = [0, 1, 2, 1, 2, 0, 2, 0, 1];
        let p = Profile::new(3, &r, &[1, 1, 1]).unwrap();
        assert_eq!(condorcet_winner(&p), None);
        // A pairwise tie also blocks a winner.
        let p = Profile::new(2, &[0, 1, 1, 0], &[2, 2]).unwrap();
        assert_eq!(condorcet_winner(&p), None);
    }
}
