//! Top trading cycles (Shapley–Scarf housing market).
//!
//! Each remaining agent points at the owner of its favourite remaining house;
//! at least one cycle exists, every agent on a cycle gets the house it points
//! at and leaves with it; repeat until everyone is housed. Cycles are
//! disjoint, so clearing all of them in a round gives the same allocation as
//! clearing them one at a time.

use crate::error::{Error, Result};

/// The allocation and when each agent left.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ttc {
    /// House assigned to each agent.
    pub house: Vec<usize>,
    /// Round (0-based) in which each agent's cycle cleared.
    pub round: Vec<usize>,
}

fn check_permutation(field: &str, row: &[usize], n: usize, what: &str) -> Result<()> {
    let mut seen = vec![false; n];
    for &h in row {
        if h >= n || seen[h] {
            return Err(Error::invalid(
                field,
                format!("{what} must list each of the {n} houses once (found {h})"),
            ));
        }
        seen[h] = true;
    }
    Ok(())
}

/// `preferences` is `n x n`: row `i` ranks the houses for agent `i`, best
/// first. `endowment[i]` is the house agent `i` owns (a permutation).
pub fn top_trading_cycles(preferences: &[usize], endowment: &[usize]) -> Result<Ttc> {
    let n = endowment.len();
    if preferences.len() != n * n {
        return Err(Error::invalid(
            "preferences",
            format!(
                "expected {n} x {n} house numbers, got {}",
                preferences.len()
            ),
        ));
    }
    check_permutation("endowment", endowment, n, "the endowment")?;
    for (i, row) in preferences.chunks(n.max(1)).enumerate() {
        check_permutation("preferences", row, n, &format!("agent {i}'s ranking"))?;
    }
    let mut owner = vec![0; n];
    for (agent, &h) in endowment.iter().enumerate() {
        owner[h] = agent;
    }
    let (mut house, mut round) = (vec![usize::MAX; n], vec![0; n]);
    let mut taken = vec![false; n];
    let mut remaining = n;
    let mut r = 0;
    while remaining > 0 {
        // Each remaining agent's favourite remaining house.
        let target: Vec<Option<usize>> = (0..n)
            .map(|i| {
                (house[i] == usize::MAX).then(|| {
                    *preferences[i * n..(i + 1) * n]
                        .iter()
                        .find(|&&h| !taken[h])
                        .expect("a remaining agent's own house is still available")
                })
            })
            .collect();
        // Follow pointers from every agent; a walk that returns to an agent
        // already on the current walk has found a cycle.
        let mut cleared = Vec::new();
        let mut state = vec![0u8; n]; // 0 unvisited, 1 on walk, 2 done
        for start in 0..n {
            if target[start].is_none() || state[start] != 0 {
                continue;
            }
            let mut walk = Vec::new();
            let mut a = start;
            while state[a] == 0 {
                state[a] = 1;
                walk.push(a);
                a = owner[target[a].expect("remaining agents point at someone")];
            }
            if state[a] == 1 {
                let from = walk.iter().position(|&w| w == a).expect("a is on the walk");
                cleared.extend_from_slice(&walk[from..]);
            }
            walk.iter().for_each(|&w| state[w] = 2);
        }
        for &a in &cleared {
            let h = target[a].expect("cleared agents point at a house");
            house[a] = h;
            round[a] = r;
            taken[h] = true;
        }
        remaining -= cleared.len();
        r += 1;
    }
    Ok(Ttc { house, round })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ttc_example_from_the_paper() {
        // Houses 1, 2, 3 are 0, 1, 2. A: 2>3>1, B: 1>2>3, C: 1>3>2; A owns
        // house 1, B house 2, C house 3 -> A gets 2, B gets 1, C keeps 3.
        let prefs = [1, 2, 0, 0, 1, 2, 0, 2, 1];
        let t = top_trading_cycles(&prefs, &[0, 1, 2]).unwrap();
        assert_eq!(t.house, vec![1, 0, 2]);
        assert_eq!(t.round, vec![0, 0, 1]);
    }

    #[test]
    fn everyone_keeps_their_house_when_they_like_it_best() {
        let prefs = [2, 0, 1, 1, 0, 2, 0, 1, 2];
        let t = top_trading_cycles(&prefs, &[2, 1, 0]).unwrap();
        assert_eq!(t.house, vec![2, 1, 0]);
        assert_eq!(t.round, vec![0, 0, 0]);
    }

    #[test]
    fn three_cycle() {
        // Agent i owns house i and wants house i+1 mod 3.
        let prefs = [1, 0, 2, 2, 1, 0, 0, 2, 1];
        let t = top_trading_cycles(&prefs, &[0, 1, 2]).unwrap();
        assert_eq!(t.house, vec![1, 2, 0]);
    }

    #[test]
    fn bad_input() {
        assert!(top_trading_cycles(&[0, 1, 0, 1], &[0, 0]).is_err());
        assert!(top_trading_cycles(&[0, 0, 0, 1], &[0, 1]).is_err());
        assert!(top_trading_cycles(&[0, 1, 0], &[0, 1]).is_err());
        assert_eq!(
            top_trading_cycles(&[], &[]).unwrap().house,
            Vec::<usize>::new()
        );
    }
}
