use super::*;
use proptest::prelude::*;

fn ex(prices: &[f64], quantities: &[f64], goods: usize) -> Expenditure {
    Expenditure::new(prices, quantities, goods).expect("valid data")
}

/// Two observations that violate GARP both ways (worked by hand):
/// E = [[4, 3], [6, 7]], ratios 3/4 and 6/7, so CCEI = 6/7; the one cycle
/// pumps (4 - 3) + (7 - 6) = 2 out of 4 + 7 = 11.
#[test]
fn two_observation_violation() {
    let e = ex(&[1.0, 1.0, 1.0, 3.0], &[3.0, 1.0, 1.0, 2.0], 2);
    assert_eq!(
        garp(&e),
        Garp {
            consistent: false,
            violations: 2
        }
    );
    assert_eq!(ccei(&e), 6.0 / 7.0);
    let hm = houtman_maks(&e, HM_NODE_BUDGET);
    assert_eq!((hm.size, hm.upper, hm.exact), (1, 1, true));
    let mp = money_pump(&e, MPI_STEP_BUDGET);
    assert_eq!((mp.cycles, mp.exact), (1, true));
    assert!((mp.mean - 2.0 / 11.0).abs() < 1e-15 && mp.max == mp.mean);
}

/// A weak cycle closed by one strict edge: GARP fails but the supremum of
/// the efficiencies that pass is 1.
#[test]
fn boundary_violation_has_ccei_one() {
    let e = ex(&[1.0, 1.0, 1.0, 2.0], &[3.0, 1.0, 1.0, 3.0], 2);
    assert_eq!(garp(&e).violations, 1);
    assert_eq!(ccei(&e), 1.0);
}

#[test]
fn consistent_data() {
    // Cobb-Douglas halves: x = (m / 2 p1, m / 2 p2).
    let p = [1.0, 2.0, 2.0, 1.0, 1.0, 1.0];
    let x = [5.0, 2.5, 2.5, 5.0, 5.0, 5.0];
    let e = ex(&p, &x, 2);
    assert!(garp(&e).consistent);
    assert_eq!(ccei(&e), 1.0);
    assert_eq!(houtman_maks(&e, 10).size, 3);
    assert_eq!(money_pump(&e, 10).cycles, 0);
}

#[test]
fn bad_input_names_subject_observation_and_good() {
    let p = [1.0, 1.0, 1.0, -2.0];
    let x = [1.0, 1.0, 1.0, 1.0];
    let offsets = [0, 1, 2];
    let panel = Panel::new(&p, &x, 2, &offsets).unwrap();
    let err = garp_ccei_batch(&panel, true).unwrap_err().to_string();
    assert!(
        err.contains("subject 1") && err.contains("observation 0, good 1"),
        "{err}"
    );
    let x_nan = [1.0, f64::NAN, 1.0, 1.0];
    let p_ok = [1.0; 4];
    let panel = Panel::new(&p_ok, &x_nan, 2, &offsets).unwrap();
    let err = garp_ccei_batch(&panel, false).unwrap_err().to_string();
    assert!(
        err.starts_with("quantities: subject 0: observation 0, good 1"),
        "{err}"
    );
    let empty = [0, 0, 2];
    let panel = Panel::new(&p_ok, &x, 2, &empty).unwrap();
    let err = garp_ccei_batch(&panel, false).unwrap_err().to_string();
    assert!(err.contains("subject 0") && err.contains("T = 0"), "{err}");
    assert!(Panel::new(&p_ok, &x, 2, &[0, 3]).is_err());
    assert!(Expenditure::new(&[1.0, 1.0], &[0.0, 0.0], 2).is_err());
}

// ---- brute force ----------------------------------------------------------

fn reach(n: usize, edge: &dyn Fn(usize, usize) -> bool, from: usize, to: usize, mask: u32) -> bool {
    let mut stack = vec![from];
    let mut seen = vec![false; n];
    while let Some(v) = stack.pop() {
        for (w, seen_w) in seen.iter_mut().enumerate() {
            if w != v && mask >> w & 1 == 1 && edge(v, w) && !*seen_w {
                if w == to {
                    return true;
                }
                *seen_w = true;
                stack.push(w);
            }
        }
    }
    false
}

fn garp_e(e: &Expenditure, eff: f64, mask: u32) -> bool {
    let n = e.len();
    let weak = |t: usize, s: usize| eff * e.at(t, t) >= e.at(t, s);
    (0..n).filter(|&t| mask >> t & 1 == 1).all(|t| {
        (0..n).filter(|&s| s != t && mask >> s & 1 == 1).all(|s| {
            !(eff * e.at(s, s) > e.at(s, t) && (weak(t, s) || reach(n, &weak, t, s, mask)))
        })
    })
}

fn data(n: usize, seed: &[f64]) -> Expenditure {
    let p: Vec<f64> = seed[..2 * n].iter().map(|v| 0.5 + v).collect();
    let x: Vec<f64> = seed[2 * n..4 * n].iter().map(|v| 0.1 + 9.0 * v).collect();
    ex(&p, &x, 2)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn matches_brute_force(n in 1usize..8, seed in prop::collection::vec(0.0f64..1.0, 32)) {
        let e = data(n, &seed);
        let all = (1u32 << n) - 1;
        let g = garp(&e);
        prop_assert_eq!(g.consistent, garp_e(&e, 1.0, all));
        // CCEI: GARP_e holds just below the answer and fails just above it.
        let c = ccei(&e);
        prop_assert!(garp_e(&e, c * (1.0 - 1e-12), all));
        if c < 1.0 {
            prop_assert!(!garp_e(&e, c * (1.0 + 1e-12), all));
        }
        // Houtman-Maks: the largest consistent subset.
        let best = (0..=all)
            .filter(|&m| garp_e(&e, 1.0, m))
            .map(|m| m.count_ones() as usize)
            .max()
            .unwrap();
        let hm = houtman_maks(&e, HM_NODE_BUDGET);
        prop_assert!(hm.exact);
        prop_assert_eq!(hm.size, best);
        // The bound used for components too large to search.
        let everyone: Vec<usize> = (0..n).collect();
        prop_assert!(hm::short_cycle_packing(&e, &everyone) <= n - best);
        let mp = money_pump(&e, MPI_STEP_BUDGET);
        prop_assert_eq!(mp.cycles == 0, g.consistent);
        prop_assert!(mp.exact && mp.max >= mp.mean && mp.max < 1.0);
        // The maximum needs no enumeration: Dinkelbach alone finds it.
        let quick = money_pump(&e, 0);
        prop_assert!((quick.max - mp.max).abs() <= 1e-12, "{} vs {}", quick.max, mp.max);
    }

    #[test]
    fn batch_equals_single(seed in prop::collection::vec(0.0f64..1.0, 48)) {
        let p: Vec<f64> = seed[..24].iter().map(|v| 0.5 + v).collect();
        let x: Vec<f64> = seed[24..].iter().map(|v| 9.0 * v + 0.1).collect();
        let offsets = [0, 3, 4, 12];
        let panel = Panel::new(&p, &x, 2, &offsets).unwrap();
        let out = garp_ccei_batch(&panel, true).unwrap();
        for (i, (g, c)) in out.iter().enumerate() {
            let (a, b) = (offsets[i] * 2, offsets[i + 1] * 2);
            let e = ex(&p[a..b], &x[a..b], 2);
            prop_assert_eq!(*g, garp(&e));
            prop_assert_eq!(c.unwrap(), if g.consistent { 1.0 } else { ccei(&e) });
        }
    }
}
