//! Dependency robustness: does a model do worse on an element's
//! prerequisites than on the element itself?
//!
//! For element s with transitive prerequisites G_s, the score is
//! Σ_{x ∈ G_s, gap(x) < gap(s)} (gap(s) − gap(x)), gap = normalized accuracy,
//! comparing only cells that share every other key (same model, domain, …).
//! 0 means no prerequisite scored below the element; larger is a stronger
//! sign the element's answers do not rest on its foundations.

use crate::error::{Error, Result};
use std::collections::HashMap;

/// One value per cell (NaN where the cell's own score is undefined).
///
/// `score[c]` is cell c's normalized accuracy (NaN = undefined), `element[c]`
/// its element index, `context[c]` a code for its other keys.
/// `prerequisites` is CSR over element indices: element e's transitive
/// prerequisites are `prereq[offsets[e]..offsets[e + 1]]`.
pub fn dependency_robustness(
    score: &[f64],
    element: &[u32],
    context: &[u32],
    offsets: &[usize],
    prereq: &[u32],
) -> Result<Vec<f64>> {
    let n = score.len();
    if element.len() != n || context.len() != n {
        return Err(Error::invalid(
            "element",
            "score, element and context differ in length",
        ));
    }
    let n_elements = offsets.len().saturating_sub(1);
    if offsets.last().copied().unwrap_or(0) != prereq.len()
        || offsets.windows(2).any(|w| w[0] > w[1])
    {
        return Err(Error::invalid(
            "offsets",
            "not a valid CSR index over prerequisites",
        ));
    }
    let mut lookup: HashMap<(u32, u32), f64> = HashMap::new();
    lookup
        .try_reserve(n)
        .map_err(|_| Error::too_large("cells", Some(n)))?;
    for c in 0..n {
        if element[c] as usize >= n_elements {
            return Err(Error::invalid(
                "element",
                format!("cell {c}: element index {} out of range", element[c]),
            ));
        }
        if !score[c].is_nan() {
            lookup.insert((context[c], element[c]), score[c]);
        }
    }
    Ok((0..n)
        .map(|c| {
            let mine = score[c];
            if mine.is_nan() {
                return f64::NAN;
            }
            let e = element[c] as usize;
            prereq[offsets[e]..offsets[e + 1]]
                .iter()
                .filter_map(|&x| lookup.get(&(context[c], x)))
                .filter(|&&theirs| theirs < mine)
                .map(|&theirs| mine - theirs)
                .sum()
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_graph_by_hand() {
        // Elements 0 ← 1 ← 2 (2 requires 1 and, transitively, 0).
        // Context 0: scores 0.2, 0.5, 0.9 → s=2: (0.9−0.5) + (0.9−0.2) = 1.1;
        // s=1: 0.5−0.2 = 0.3; s=0: no prerequisites → 0.
        // Context 1: element 1 undefined, element 2 = 0.1 below element 0 = 0.4 → 0.
        let score = [0.2, 0.5, 0.9, 0.4, f64::NAN, 0.1];
        let element = [0, 1, 2, 0, 1, 2];
        let context = [0, 0, 0, 1, 1, 1];
        let offsets = [0, 0, 1, 3];
        let prereq = [0, 1, 0];
        let got = dependency_robustness(&score, &element, &context, &offsets, &prereq).unwrap();
        assert!((got[2] - 1.1).abs() < 1e-12);
        assert!((got[1] - 0.3).abs() < 1e-12);
        assert_eq!(got[0], 0.0);
        assert!(got[4].is_nan());
        assert_eq!(got[5], 0.0);
    }

    #[test]
    fn bad_inputs() {
        assert!(dependency_robustness(&[0.1], &[0, 1], &[0], &[0, 0], &[]).is_err());
        assert!(dependency_robustness(&[0.1], &[3], &[0], &[0, 0], &[]).is_err());
        assert!(dependency_robustness(&[0.1], &[0], &[0], &[0, 2], &[0]).is_err());
    }
}
