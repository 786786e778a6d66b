use super::*;

fn boot(resamples: usize) -> Bootstrap {
    Bootstrap {
        resamples,
        level: 0.95,
        seed: 7,
    }
}

/// A TK-like grid (gains and mirrored losses) plus mixed gambles, answered
/// exactly (lo = hi) by a subject with `theta`.
#[allow(clippy::type_complexity)]
fn exact_design(theta: &[f64; 5]) -> (Vec<i64>, Vec<f64>, Vec<f64>, Vec<f64>, Vec<f64>, Vec<f64>) {
    let (mut kind, mut x1, mut p1, mut x2, mut p2, mut y) =
        (vec![], vec![], vec![], vec![], vec![], vec![]);
    for &(a, b) in &[
        (0.0, 50.0),
        (0.0, 100.0),
        (0.0, 200.0),
        (50.0, 100.0),
        (100.0, 200.0),
    ] {
        for &p in &[0.05, 0.25, 0.5, 0.75, 0.95] {
            for sign in [1.0, -1.0] {
                kind.push(0);
                x1.push(sign * a);
                p1.push(1.0 - p);
                x2.push(sign * b);
                p2.push(p);
                y.push(switch_value(theta, 0, sign * a, 1.0 - p, sign * b, p).unwrap());
            }
        }
    }
    for &l in &[-50.0, -100.0, -200.0, -400.0] {
        for &p in &[0.25, 0.5, 0.75, 0.9] {
            kind.push(1);
            x1.push(l);
            p1.push(p);
            x2.push(f64::NAN);
            p2.push(f64::NAN);
            y.push(switch_value(theta, 1, l, p, 0.0, 0.0).unwrap());
        }
    }
    (kind, x1, p1, x2, p2, y)
}

#[test]
fn prospect_theory_recovers_exact_answers() {
    let theta = [0.7, 0.9, 2.0, 0.55, 0.75];
    let (kind, x1, p1, x2, p2, y) = exact_design(&theta);
    let group = vec![3; kind.len()];
    let data = ProspectData {
        group: &group,
        kind: &kind,
        x1: &x1,
        p1: &p1,
        x2: &x2,
        p2: &p2,
        lo: &y,
        hi: &y,
    };
    for method in [Method::Lm, Method::Mle] {
        let fits = prospect_theory(&data, method, &boot(0)).unwrap();
        assert_eq!(fits.len(), 1);
        let f = &fits[0];
        assert_eq!(f.group, 3);
        for (i, t) in theta.iter().enumerate() {
            let pf = &f.params[i];
            assert!(pf.is_identified(), "{method:?} {:?}", pf);
            let e = pf.estimate.unwrap();
            assert!((e - t).abs() < 1e-4, "{method:?} {}: {e} vs {t}", pf.name);
        }
    }
}

#[test]
fn prospect_theory_holds_what_the_data_cannot_identify() {
    // Gains only: β, δ, λ held.
    let theta = [0.7, 0.9, 2.0, 0.55, 0.75];
    let (kind, x1, p1, x2, p2, y) = exact_design(&theta);
    let keep: Vec<usize> = (0..kind.len())
        .filter(|&i| kind[i] == 0 && x2[i] > 0.0)
        .collect();
    let pick = |v: &[f64]| keep.iter().map(|&i| v[i]).collect::<Vec<f64>>();
    let (x1, p1, x2, p2, y) = (pick(&x1), pick(&p1), pick(&x2), pick(&p2), pick(&y));
    let kind = vec![0; keep.len()];
    let group = vec![0; keep.len()];
    let lo: Vec<f64> = y.iter().map(|v| v - 0.5).collect();
    let hi: Vec<f64> = y.iter().map(|v| v + 0.5).collect();
    let data = ProspectData {
        group: &group,
        kind: &kind,
        x1: &x1,
        p1: &p1,
        x2: &x2,
        p2: &p2,
        lo: &lo,
        hi: &hi,
    };
    let f = &prospect_theory(&data, Method::Lm, &boot(50)).unwrap()[0];
    let by = |n: &str| f.params.iter().find(|p| p.name == n).unwrap();
    assert!(by("alpha").is_identified() && by("gamma").is_identified());
    assert!((by("alpha").estimate.unwrap() - 0.7).abs() < 0.02);
    for n in ["beta", "delta", "lambda"] {
        let p = by(n);
        assert!(p.estimate.is_none() && p.ci_lo.is_none());
        assert!(
            p.reason
                .as_ref()
                .unwrap()
                .contains("held at the human median"),
            "{p:?}"
        );
    }
    let (lo_ci, hi_ci) = (by("alpha").ci_lo.unwrap(), by("alpha").ci_hi.unwrap());
    assert!(lo_ci <= hi_ci);
}

#[test]
fn degenerate_prospect_data_is_unidentified() {
    // Everything censored on the same side.
    let n = 10;
    let group = vec![1; n];
    let kind = vec![0; n];
    let x1 = vec![0.0; n];
    let x2: Vec<f64> = (0..n).map(|i| 50.0 + 10.0 * i as f64).collect();
    let p1 = vec![0.5; n];
    let lo = vec![f64::NAN; n];
    let hi = vec![1.0; n];
    let data = ProspectData {
        group: &group,
        kind: &kind,
        x1: &x1,
        p1: &p1,
        x2: &x2,
        p2: &p1,
        lo: &lo,
        hi: &hi,
    };
    for method in [Method::Lm, Method::Mle] {
        let f = &prospect_theory(&data, method, &boot(10)).unwrap()[0];
        assert!(
            f.params
                .iter()
                .all(|p| !p.is_identified() && p.estimate.is_none()),
            "{f:?}"
        );
    }
    // Only p = 0.5 with x_lo = 0: α and γ are not separable.
    let mid: Vec<f64> = x2.iter().map(|x| x * 0.4).collect();
    let data = ProspectData {
        lo: &mid,
        hi: &mid,
        ..data
    };
    let f = &prospect_theory(&data, Method::Lm, &boot(0)).unwrap()[0];
    assert!(
        f.params[0].reason.as_ref().unwrap().contains("singular"),
        "{f:?}"
    );
}

#[test]
fn bad_prospect_input_is_an_error() {
    let g = [0, 0];
    let k = [0, 0];
    let ok = [0.0, 0.0];
    let x2 = [10.0, 10.0];
    let p = [0.5, 0.5];
    let lo = [1.0, 2.0];
    let hi = [2.0, 1.0];
    let data = ProspectData {
        group: &g,
        kind: &k,
        x1: &ok,
        p1: &p,
        x2: &x2,
        p2: &p,
        lo: &lo,
        hi: &hi,
    };
    let e = prospect_theory(&data, Method::Mle, &boot(0)).unwrap_err();
    assert!(e.to_string().contains("observation 1: lo 2 > hi 1"), "{e}");
    let p_bad = [0.5, 0.6];
    let e = prospect_theory(
        &ProspectData {
            p2: &p_bad,
            hi: &lo,
            ..data
        },
        Method::Mle,
        &boot(0),
    )
    .unwrap_err();
    assert!(e.to_string().contains("p1 + p2"), "{e}");
}

#[test]
fn intervals_do_not_depend_on_the_thread_count() {
    let theta = [0.8, 0.8, 2.0, 0.6, 0.7];
    let (kind, x1, p1, x2, p2, y) = exact_design(&theta);
    let lo: Vec<f64> = y
        .iter()
        .enumerate()
        .map(|(i, v)| v * (0.9 + 0.01 * (i % 7) as f64))
        .collect();
    let hi: Vec<f64> = y
        .iter()
        .enumerate()
        .map(|(i, v)| v * (1.0 + 0.02 * (i % 5) as f64))
        .collect();
    let (lo, hi): (Vec<f64>, Vec<f64>) = lo
        .iter()
        .zip(&hi)
        .map(|(&a, &b)| (a.min(b), a.max(b)))
        .unzip();
    let group: Vec<i64> = (0..kind.len() as i64).map(|i| i % 2).collect();
    let data = ProspectData {
        group: &group,
        kind: &kind,
        x1: &x1,
        p1: &p1,
        x2: &x2,
        p2: &p2,
        lo: &lo,
        hi: &hi,
    };
    let run = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| prospect_theory(&data, Method::Lm, &boot(40)).unwrap())
    };
    assert_eq!(run(1), run(3));
}

#[test]
fn discounting_recovers_each_family() {
    let delays = [1.0 / 12.0, 0.5, 1.0, 5.0, 10.0, 25.0];
    let amount = vec![1000.0; delays.len()];
    let group = vec![0; delays.len()];
    for (family, x) in [
        (DiscountFamily::Hyperbolic, vec![0.3]),
        (DiscountFamily::Exponential, vec![0.9]),
        (DiscountFamily::QuasiHyperbolic, vec![0.8, 0.95]),
    ] {
        let mut dm = [0.0; 2];
        let y: Vec<f64> = delays
            .iter()
            .map(|&d| family.value(&x, d, 1000.0, &mut dm))
            .collect();
        let data = DiscountData {
            group: &group,
            delay: &delays,
            amount: &amount,
            lo: &y,
            hi: &y,
        };
        let f = &discounting(&data, &[family], &boot(20)).unwrap()[0];
        for (p, t) in f.params.iter().zip(&x) {
            assert!((p.estimate.unwrap() - t).abs() < 1e-6, "{family:?}: {p:?}");
        }
        assert!(f.r2.unwrap() > 0.999_999);
    }
    // One delay: quasi-hyperbolic β and δ are not separable.
    let one = [1.0; 4];
    let a = [1000.0; 4];
    let y = [800.0, 810.0, 790.0, 805.0];
    let g = [0; 4];
    let f = &discounting(
        &DiscountData {
            group: &g,
            delay: &one,
            amount: &a,
            lo: &y,
            hi: &y,
        },
        &[DiscountFamily::QuasiHyperbolic],
        &boot(0),
    )
    .unwrap()[0];
    assert!(!f.params[0].is_identified(), "{f:?}");
}

#[test]
fn fehr_schmidt_thresholds() {
    // Accepts 3 of 10 and up: α = 0.3 / 0.4 = 0.75.
    let offers: Vec<f64> = (0..=10).map(f64::from).collect();
    let pool = vec![10.0; offers.len()];
    let accepted: Vec<bool> = offers.iter().map(|&s| s >= 3.0).collect();
    let rg = vec![0; offers.len()];
    // β = 0.4 chooser: (own, other) options, always ahead.
    let beta = 0.4;
    let (mut oa, mut ya, mut ob, mut yb, mut ca) = (vec![], vec![], vec![], vec![], vec![]);
    for k in 1..10 {
        // a: (10, 0); b: (9, y) with threshold Δx/Δd = 1/(1 + y) = t.
        let t = 0.05 + 0.1 * f64::from(k);
        let (xa, yaa, xb, ybb) = (10.0, 0.0, 9.0, (1.0 - t) / t);
        let u = |x: f64, y: f64| x - beta * (x - y).max(0.0);
        oa.push(xa);
        ya.push(yaa);
        ob.push(xb);
        yb.push(ybb);
        ca.push(u(xa, yaa) >= u(xb, ybb));
    }
    let ag = vec![0; oa.len()];
    let pp = [10.0, 10.0];
    let po = [4.0, 5.0];
    let pg = [0, 0];
    let data = FairnessData {
        responder_group: &rg,
        pool: &pool,
        offer: &offers,
        accepted: &accepted,
        allocation_group: &ag,
        own_a: &oa,
        other_a: &ya,
        own_b: &ob,
        other_b: &yb,
        chose_a: &ca,
        proposer_group: &pg,
        proposer_pool: &pp,
        proposer_offer: &po,
    };
    let f = &fehr_schmidt(&data, &boot(100)).unwrap()[0];
    assert!(
        (f.params[0].estimate.unwrap() - 0.75).abs() < 1e-12,
        "{f:?}"
    );
    let b = f.params[1].estimate.unwrap();
    assert!((b - beta).abs() < 1e-12, "{f:?}");
    assert!((f.params[2].estimate.unwrap() - 0.55).abs() < 1e-12);
    // Never accepts: α unidentified.
    let none = vec![false; offers.len()];
    let f = &fehr_schmidt(
        &FairnessData {
            accepted: &none,
            ..data
        },
        &boot(10),
    )
    .unwrap()[0];
    assert!(!f.params[0].is_identified());
}

#[test]
fn prospect_model_derivatives_match_finite_differences() {
    use super::prospect::model_for_tests as model;
    let x = [0.8, 0.9, 2.1, 0.6, 0.7];
    for (kind, x1, p1, x2, p2) in [
        (0, 0.0, 0.3, 100.0, 0.7),
        (0, 50.0, 0.9, 150.0, 0.1),
        (0, -50.0, 0.5, -200.0, 0.5),
        (1, -100.0, 0.25, f64::NAN, f64::NAN),
    ] {
        let (_, d1, d2) = model(&x, kind, x1, p1, x2, p2);
        let h = 1e-6;
        for i in 0..5 {
            let (mut up, mut dn) = (x, x);
            up[i] += h;
            dn[i] -= h;
            let (mu, gu, _) = model(&up, kind, x1, p1, x2, p2);
            let (md, gd, _) = model(&dn, kind, x1, p1, x2, p2);
            let num = (mu - md) / (2.0 * h);
            assert!(
                (d1[i] - num).abs() <= 1e-5 * (1.0 + num.abs()),
                "{kind} d{i}: {} vs {num}",
                d1[i]
            );
            for j in 0..5 {
                let num2 = (gu[j] - gd[j]) / (2.0 * h);
                let got = d2[i * 5 + j];
                assert!(
                    (got - num2).abs() <= 1e-4 * (1.0 + num2.abs()),
                    "{kind} d{i}{j}: {got} vs {num2}"
                );
            }
        }
    }
}

/// Known issue: at linear weighting (γ = δ = 1, β = 1) the Newton polish
/// stalls about 1e-5 from the exact answer (SSR ~1e-5 instead of 0). Not the
/// solver: with α = 0.375 the mixed gambles' answers reach ~1e9, the model
/// evaluates them to about 1e-13 relative, and at the stall the residuals
/// (~5e-4) are that rounding, so the gradient there is noise (it changes by
/// 1e3× between neighbouring floats) and no step can decrease the unweighted
/// SSR further.
#[test]
#[ignore]
fn exact_answers_at_linear_weighting() {
    for theta in [[0.375, 1.0, 1.0, 1.0, 1.0], [0.5, 1.0, 2.0, 1.0, 1.0]] {
        let (kind, x1, p1, x2, p2, y) = exact_design(&theta);
        let group = vec![0; kind.len()];
        let data = ProspectData {
            group: &group,
            kind: &kind,
            x1: &x1,
            p1: &p1,
            x2: &x2,
            p2: &p2,
            lo: &y,
            hi: &y,
        };
        let f = &prospect_theory(&data, Method::Lm, &boot(0)).unwrap()[0];
        for (p, t) in f.params.iter().zip(theta) {
            assert!(
                (p.estimate.unwrap_or(f64::NAN) - t).abs() < 1e-5,
                "{theta:?} {f:?}"
            );
        }
    }
}

/// A noisy subject on the exact design: narrow brackets around the model's
/// answer shifted by a few per cent either way (a few open), for the
/// likelihood tests.
#[allow(clippy::type_complexity)]
fn bracketed_design(
    theta: &[f64; 5],
) -> (
    Vec<i64>,
    Vec<f64>,
    Vec<f64>,
    Vec<f64>,
    Vec<f64>,
    Vec<f64>,
    Vec<f64>,
) {
    let (kind, x1, p1, x2, p2, y) = exact_design(theta);
    let (mut lo, mut hi) = (vec![], vec![]);
    for (i, &v) in y.iter().enumerate() {
        let shift = [0.06, -0.05, 0.08, -0.07, 0.03, -0.04, 0.0][i % 7] * v.abs();
        let width = [0.02, 0.03, 0.025][i % 3] * v.abs().max(1.0);
        let c = v + shift;
        lo.push(if i % 17 == 3 { f64::NAN } else { c - width });
        hi.push(if i % 19 == 5 { f64::NAN } else { c + width });
    }
    (kind, x1, p1, x2, p2, lo, hi)
}

#[test]
fn resample_objective_matches_a_direct_sum_and_finite_differences() {
    use super::normal::censored;
    use super::prospect::objective_for_tests as objective;
    let theta = [0.8, 0.9, 2.1, 0.6, 0.7];
    let (kind, x1, p1, x2, p2, lo, hi) = bracketed_design(&theta);
    let group = vec![0; kind.len()];
    let data = ProspectData {
        group: &group,
        kind: &kind,
        x1: &x1,
        p1: &p1,
        x2: &x2,
        p2: &p2,
        lo: &lo,
        hi: &hi,
    };
    // Bootstrap-like weights, zeros included.
    let weights: Vec<f64> = (0..kind.len()).map(|i| ((i * 7) % 4) as f64).collect();
    let x = [0.75, 0.95, 1.8, 0.65, 0.72, 0.08];
    // The shared weighting and power terms give the plain per-observation sum.
    let (f, ..) = objective(&data, Method::Mle, &x, &weights, [false; 6]);
    let theta5 = [x[0], x[1], x[2], x[3], x[4]];
    let direct: f64 = (0..kind.len())
        .map(|i| {
            let m = switch_value(&theta5, kind[i], x1[i], p1[i], x2[i], p2[i]).unwrap();
            let scale = if kind[i] == 0 {
                (x2[i] - x1[i]).abs()
            } else {
                -x1[i] * p1[i] / (1.0 - p1[i])
            };
            -weights[i] * censored(m, x[5], scale, lo[i], hi[i]).ll
        })
        .sum();
    assert!(
        (f - direct).abs() <= 1e-12 * direct.abs(),
        "{f} vs {direct}"
    );
    // In log coordinates for λ and σ (as the resamples see them), the
    // gradient and Hessian are the finite differences of f and g.
    let log = [false, false, true, false, false, true];
    let mut u = x;
    for i in [2, 5] {
        u[i] = x[i].ln();
    }
    let (fu, g, h, psd) = objective(&data, Method::Mle, &u, &weights, log);
    assert!((fu - f).abs() <= 1e-12 * f.abs());
    let step = 1e-6;
    for i in 0..6 {
        let (mut up, mut dn) = (u, u);
        up[i] += step;
        dn[i] -= step;
        let (fp, gp, ..) = objective(&data, Method::Mle, &up, &weights, log);
        let (fm, gm, ..) = objective(&data, Method::Mle, &dn, &weights, log);
        let num = (fp - fm) / (2.0 * step);
        assert!(
            (g[i] - num).abs() <= 1e-5 * (1.0 + num.abs()),
            "g{i}: {} vs {num}",
            g[i]
        );
        for j in 0..6 {
            let num2 = (gp[j] - gm[j]) / (2.0 * step);
            let got = h[i * 6 + j];
            assert!(
                (got - num2).abs() <= 1e-4 * (1.0 + num2.abs()),
                "h{i}{j}: {got} vs {num2}"
            );
        }
    }
    // The fallback curvature is symmetric with a positive model diagonal.
    for i in 0..6 {
        assert!(i == 5 || psd[i * 6 + i] > 0.0, "{psd:?}");
        for j in 0..6 {
            assert_eq!(psd[i * 6 + j], psd[j * 6 + i]);
        }
    }
}

#[test]
fn mle_resamples_reach_their_own_optimum() {
    // Each resample's fit (warm start, Newton, λ and σ in log coordinates,
    // stop on the predicted decrease) lands where a long cold fit from the
    // medians lands: the percentile interval is the same to 1e-6.
    let theta = [0.8, 0.9, 2.1, 0.6, 0.7];
    let (kind, x1, p1, x2, p2, lo, hi) = bracketed_design(&theta);
    let group = vec![0; kind.len()];
    let data = ProspectData {
        group: &group,
        kind: &kind,
        x1: &x1,
        p1: &p1,
        x2: &x2,
        p2: &p2,
        lo: &lo,
        hi: &hi,
    };
    let fit = &prospect_theory(&data, Method::Mle, &boot(40)).unwrap()[0];
    assert!(fit.params.iter().all(|p| p.is_identified()), "{fit:?}");
    // The same resamples, fitted from scratch with the Gauss–Newton matrix
    // throughout (no warm start, no log coordinates, no early stop).
    let n = kind.len();
    let mut ests: Vec<[f64; 6]> = Vec::new();
    for r in 0..40u64 {
        let mut rng = crate::metrics::rng::Xoshiro256pp::for_stream(&[7, 0, r, 0x5054]);
        let mut counts = vec![0usize; n];
        for _ in 0..n {
            counts[rng.below(n)] += 1;
        }
        let rows: Vec<usize> = (0..n)
            .flat_map(|i| std::iter::repeat_n(i, counts[i]))
            .collect();
        let pick = |v: &[f64]| rows.iter().map(|&i| v[i]).collect::<Vec<f64>>();
        let k: Vec<i64> = rows.iter().map(|&i| kind[i]).collect();
        let g = vec![0; rows.len()];
        let (a, b, c, d, l, h) = (
            pick(&x1),
            pick(&p1),
            pick(&x2),
            pick(&p2),
            pick(&lo),
            pick(&hi),
        );
        let one = ProspectData {
            group: &g,
            kind: &k,
            x1: &a,
            p1: &b,
            x2: &c,
            p2: &d,
            lo: &l,
            hi: &h,
        };
        let f = &prospect_theory(&one, Method::Mle, &boot(0)).unwrap()[0];
        let mut e = [f64::NAN; 6];
        for (i, p) in f.params.iter().enumerate() {
            e[i] = p.estimate.unwrap_or(f64::NAN);
        }
        ests.push(e);
    }
    for (i, p) in fit.params.iter().enumerate() {
        let mut v: Vec<f64> = ests.iter().map(|e| e[i]).filter(|x| !x.is_nan()).collect();
        assert!(v.len() >= 38, "{} resample fits failed", 40 - v.len());
        v.sort_by(f64::total_cmp);
        let want = (
            crate::metrics::bootstrap::percentile(&v, 0.025),
            crate::metrics::bootstrap::percentile(&v, 0.975),
        );
        let got = (p.ci_lo.unwrap(), p.ci_hi.unwrap());
        for (g, w) in [(got.0, want.0), (got.1, want.1)] {
            assert!(
                (g - w).abs() <= 1e-6 * w.abs().max(1.0),
                "{}: {got:?} vs {want:?}",
                p.name
            );
        }
    }
}
