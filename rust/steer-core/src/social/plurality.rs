//! Plurality: each voter's first choice gets one point.

use super::profile::{winners, Profile, Tally};

/// First-place counts and the candidates with the most.
pub fn plurality(profile: &Profile) -> Tally<u64> {
    let mut scores = vec![0u64; profile.candidates()];
    for (ranking, count) in profile.ballots() {
        scores[ranking[0]] += count;
    }
    let winners = winners(&scores);
    Tally { scores, winners }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plurality_example_from_the_paper() {
        // Candidates K=0, L=1, M=2, N=3. 23 L>M>K, 21 L>K>M, 40 M>K>N,
        // 33 N>L>K (unlisted candidates last) -> L with 44 first places.
        let r = [1, 2, 0, 3, 1, 0, 2, 3, 2, 0, 3, 1, 3, 1, 0, 2];
        let p = Profile::new(4, &r, &[23, 21, 40, 33]).unwrap();
        let t = plurality(&p);
        assert_eq!(t.scores, vec![0, 44, 40, 33]);
        assert_eq!(t.winners, vec![1]);
    }

    #[test]
    fn ties_are_reported() {
        let p = Profile::new(2, &[0, 1, 1, 0], &[3, 3]).unwrap();
        assert_eq!(plurality(&p).winners, vec![0, 1]);
    }
}
