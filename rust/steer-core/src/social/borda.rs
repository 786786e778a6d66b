//! Borda count: with `m` candidates, the candidate in place `i` (0 = best)
//! of a ranking gets `m − 1 − i` points.

use super::profile::{winners, Profile, Tally};

/// Borda scores and the candidates with the most points.
pub fn borda(profile: &Profile) -> Tally<u64> {
    let m = profile.candidates();
    let mut scores = vec![0u64; m];
    for (ranking, count) in profile.ballots() {
        for (place, &c) in ranking.iter().enumerate() {
            scores[c] += (m - 1 - place) as u64 * count;
        }
    }
    let winners = winners(&scores);
    Tally { scores, winners }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn borda_example_from_the_paper() {
        // 413 A>B>C, 176 B>A>C, 123 A>C>B -> A 1248, B 765, C 123.
        let r = [0, 1, 2, 1, 0, 2, 0, 2, 1];
        let p = Profile::new(3, &r, &[413, 176, 123]).unwrap();
        let t = borda(&p);
        assert_eq!(t.scores, vec![1248, 765, 123]);
        assert_eq!(t.winners, vec![0]);
    }

    #[test]
    fn borda_can_disagree_with_plurality() {
        // 3 A>B>C, 2 C>B>A: A 6, B 5, C 4.
        let r = [0, 1, 2, 2, 1, 0];
        let p = Profile::new(3, &r, &[3, 2]).unwrap();
        assert_eq!(borda(&p).scores, vec![6, 5, 4]);
        // Adding 2 B>C>A: plurality still favours A (3 firsts) but Borda
        // elects B.
        let r = [0, 1, 2, 2, 1, 0, 1, 2, 0];
        let p = Profile::new(3, &r, &[3, 2, 2]).unwrap();
        assert_eq!(borda(&p).scores, vec![6, 9, 6]);
        assert_eq!(borda(&p).winners, vec![1]);
    }
}
