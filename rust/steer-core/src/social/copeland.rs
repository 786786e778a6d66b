//! Copeland: one point per pairwise majority win, half a point per pairwise
//! tie.

use super::pairwise::majority_matrix;
use super::profile::{winners, Profile, Tally};

/// Copeland scores (multiples of 0.5, exact in binary) and all top scorers.
pub fn copeland(profile: &Profile) -> Tally<f64> {
    let m = profile.candidates();
    let n = majority_matrix(profile);
    let scores: Vec<f64> = (0..m)
        .map(|a| {
            (0..m)
                .filter(|&b| b != a)
                .map(|b| match n[a * m + b].cmp(&n[b * m + a]) {
                    std::cmp::Ordering::Greater => 1.0,
                    std::cmp::Ordering::Equal => 0.5,
                    std::cmp::Ordering::Less => 0.0,
                })
                .sum()
        })
        .collect();
    let winners = winners(&scores);
    Tally { scores, winners }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copeland_tie_example_from_the_paper() {
        // A beats B and C, loses to D; B beats C and D; C beats D. Realised by
        // three voters: A>B>C>D, D>A>B>C, B>C>D>A -> A 2, B 2, C 1, D 1.
        let r = [0, 1, 2, 3, 3, 0, 1, 2, 1, 2, 3, 0];
        let p = Profile::new(4, &r, &[1, 1, 1]).unwrap();
        let t = copeland(&p);
        assert_eq!(t.scores, vec![2.0, 2.0, 1.0, 1.0]);
        assert_eq!(t.winners, vec![0, 1]);
    }

    #[test]
    fn pairwise_ties_give_half_points() {
        let p = Profile::new(2, &[0, 1, 1, 0], &[2, 2]).unwrap();
        let t = copeland(&p);
        assert_eq!(t.scores, vec![0.5, 0.5]);
        assert_eq!(t.winners, vec![0, 1]);
    }
}
