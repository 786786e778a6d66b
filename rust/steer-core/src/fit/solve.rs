//! A small bounded minimiser for the fits: Levenberg–Marquardt damping of a
//! Newton-type step (the caller supplies the gradient and a positive
//! semi-definite curvature matrix — `JᵀJ` for least squares, the generalised
//! Gauss–Newton matrix for likelihoods), with box bounds handled by an active
//! set (a variable at a bound whose gradient points outwards is held) and by
//! projecting the step onto the box. Everything lives on the stack: at most
//! [`MAXP`] parameters, no allocation per iteration.

/// Largest number of parameters.
pub const MAXP: usize = 8;

/// Objective callback: `eval(x, g, h)` returns `f(x)` and fills the gradient
/// `g` (len p) and curvature `h` (p×p, row-major). A non-finite `f` marks a
/// point to reject.
pub trait Objective {
    fn eval(&mut self, x: &[f64], g: &mut [f64], h: &mut [f64]) -> f64;

    /// Like [`Objective::eval`] for [`minimize_newton`]: `h` is the exact
    /// (possibly indefinite) Hessian and `psd` a positive semi-definite
    /// stand-in (the Gauss–Newton matrix) for the steps where the damped
    /// Hessian is not positive definite. The flag says whether `psd` was
    /// filled (the default fills nothing: `h` is used throughout).
    fn eval_newton(
        &mut self,
        x: &[f64],
        g: &mut [f64],
        h: &mut [f64],
        psd: &mut [f64],
    ) -> (f64, bool) {
        let _ = psd;
        (self.eval(x, g, h), false)
    }

    /// For [`minimize`]: asks an objective whose curvature is an exact
    /// (possibly indefinite) Hessian to switch to its positive semi-definite
    /// Gauss–Newton matrix for good; true when it did (the minimiser then
    /// re-evaluates).
    fn fall_back(&mut self) -> bool {
        false
    }
}

impl<F: FnMut(&[f64], &mut [f64], &mut [f64]) -> f64> Objective for F {
    fn eval(&mut self, x: &[f64], g: &mut [f64], h: &mut [f64]) -> f64 {
        self(x, g, h)
    }
}

/// Where a minimisation ended.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Outcome {
    pub f: f64,
    pub iterations: usize,
    pub converged: bool,
}

/// In-place Cholesky of the leading `n×n` block of `a` (stride `MAXP`);
/// false when not positive definite.
pub fn cholesky(a: &mut [f64; MAXP * MAXP], n: usize) -> bool {
    for j in 0..n {
        let mut d = a[j * MAXP + j];
        for k in 0..j {
            d -= a[j * MAXP + k] * a[j * MAXP + k];
        }
        if !(d > 0.0) || !d.is_finite() {
            return false;
        }
        let d = d.sqrt();
        a[j * MAXP + j] = d;
        for i in j + 1..n {
            let mut s = a[i * MAXP + j];
            for k in 0..j {
                s -= a[i * MAXP + k] * a[j * MAXP + k];
            }
            a[i * MAXP + j] = s / d;
        }
    }
    true
}

/// Solves `L Lᵀ x = b` in place for the factor from [`cholesky`].
fn chol_solve(l: &[f64; MAXP * MAXP], n: usize, b: &mut [f64; MAXP]) {
    for i in 0..n {
        let mut s = b[i];
        for k in 0..i {
            s -= l[i * MAXP + k] * b[k];
        }
        b[i] = s / l[i * MAXP + i];
    }
    for i in (0..n).rev() {
        let mut s = b[i];
        for k in i + 1..n {
            s -= l[k * MAXP + i] * b[k];
        }
        b[i] = s / l[i * MAXP + i];
    }
}

/// Relative decrease at which a full-sample fit stops.
pub const TIGHT: f64 = 1e-15;
/// Relative decrease at which a bootstrap resample's fit (warm-started from
/// the full-sample estimate) stops: parameters to about 1e-5 relative, far
/// below the spread of the resamples.
pub const LOOSE: f64 = 1e-10;

/// Minimises from `x` (clamped into `[lo, hi]` first; `lo[i] == hi[i]` holds
/// a parameter fixed) for at most `max_iter` iterations. Converged means no
/// further decrease: the relative decrease of an accepted step fell below
/// `tol`, or no damped step decreases `f` any more.
pub fn minimize<O: Objective>(
    x: &mut [f64],
    lo: &[f64],
    hi: &[f64],
    obj: &mut O,
    max_iter: usize,
    tol: f64,
) -> Outcome {
    run(x, lo, hi, obj, max_iter, tol, false)
}

/// [`minimize`] for an objective whose curvature is an exact Hessian
/// ([`Objective::eval_newton`]): damped Newton steps, with the positive
/// semi-definite stand-in for a step where the damped Hessian is not positive
/// definite (the next step tries the Hessian again). Also converged when a
/// lightly damped step predicts a decrease below `tol·|f|`: that step is
/// taken without evaluating `f` there (near the optimum a Newton step's error
/// is quadratic in the current one), and the outcome's `f` is the last
/// evaluated value, which exceeds the final one by about that prediction.
pub fn minimize_newton<O: Objective>(
    x: &mut [f64],
    lo: &[f64],
    hi: &[f64],
    obj: &mut O,
    max_iter: usize,
    tol: f64,
) -> Outcome {
    run(x, lo, hi, obj, max_iter, tol, true)
}

/// Fills the damped curvature block of the free variables into `a` and the
/// negative gradient into `step`; false when it is not positive definite
/// (then `a` holds a partial factor).
#[allow(clippy::too_many_arguments)]
fn factor(
    h: &[f64],
    g: &[f64],
    p: usize,
    free: &[usize],
    mu: f64,
    max_diag: f64,
    a: &mut [f64; MAXP * MAXP],
    step: &mut [f64; MAXP],
) -> bool {
    let nf = free.len();
    for r in 0..nf {
        let i = free[r];
        for c in 0..nf {
            a[r * MAXP + c] = h[i * p + free[c]];
        }
        let d = h[i * p + i].abs().max(1e-12 * max_diag).max(1e-300);
        a[r * MAXP + r] += mu * d;
        step[r] = -g[i];
    }
    cholesky(a, nf)
}

fn run<O: Objective>(
    x: &mut [f64],
    lo: &[f64],
    hi: &[f64],
    obj: &mut O,
    max_iter: usize,
    tol: f64,
    newton: bool,
) -> Outcome {
    let p = x.len();
    assert!(p <= MAXP && lo.len() == p && hi.len() == p);
    for i in 0..p {
        x[i] = x[i].clamp(lo[i], hi[i]);
    }
    let (mut g, mut h, mut hp) = ([0.0; MAXP], [0.0; MAXP * MAXP], [0.0; MAXP * MAXP]);
    let (mut gt, mut ht, mut hpt) = ([0.0; MAXP], [0.0; MAXP * MAXP], [0.0; MAXP * MAXP]);
    let eval = |obj: &mut O, x: &[f64], g: &mut [f64], h: &mut [f64], hp: &mut [f64]| {
        if newton {
            obj.eval_newton(x, g, h, hp)
        } else {
            (obj.eval(x, g, h), false)
        }
    };
    let (mut f, mut has_psd) = eval(obj, x, &mut g[..p], &mut h[..p * p], &mut hp[..p * p]);
    if !f.is_finite() {
        return Outcome {
            f,
            iterations: 0,
            converged: false,
        };
    }
    let max_diag = (0..p).map(|i| h[i * p + i].abs()).fold(0.0f64, f64::max);
    // Damping relative to the diagonal (Marquardt scaling): dimensionless.
    let mut mu = 1e-3;
    let mut nu = 2.0;
    let mut xt = [0.0; MAXP];
    for it in 0..max_iter {
        if f == 0.0 {
            return Outcome {
                f,
                iterations: it,
                converged: true,
            };
        }
        // Free variables: inside the box, or at a bound with the gradient
        // pointing inwards.
        let mut free = [0usize; MAXP];
        let mut nf = 0;
        for i in 0..p {
            let fixed =
                lo[i] >= hi[i] || (x[i] <= lo[i] && g[i] > 0.0) || (x[i] >= hi[i] && g[i] < 0.0);
            if !fixed {
                free[nf] = i;
                nf += 1;
            }
        }
        if nf == 0 || (0..nf).all(|k| g[free[k]] == 0.0) {
            return Outcome {
                f,
                iterations: it,
                converged: true,
            };
        }
        let free = &free[..nf];
        let mut a = [0.0; MAXP * MAXP];
        let mut step = [0.0; MAXP];
        let mut curv = &h;
        if !factor(&h[..p * p], &g, p, free, mu, max_diag, &mut a, &mut step) {
            if !newton && obj.fall_back() {
                f = obj.eval(x, &mut g[..p], &mut h[..p * p]);
                continue;
            }
            if !(has_psd && factor(&hp[..p * p], &g, p, free, mu, max_diag, &mut a, &mut step)) {
                mu *= nu;
                nu *= 2.0;
                if mu > 1e300 {
                    break;
                }
                continue;
            }
            curv = &hp;
        }
        chol_solve(&a, nf, &mut step);
        xt[..p].copy_from_slice(x);
        for (r, &i) in free.iter().enumerate() {
            xt[i] = (x[i] + step[r]).clamp(lo[i], hi[i]);
        }
        // Predicted decrease of the quadratic model along the projected step.
        let mut pred = 0.0;
        for i in 0..p {
            let si = xt[i] - x[i];
            let mut hs = 0.0;
            for j in 0..p {
                hs += curv[i * p + j] * (xt[j] - x[j]);
            }
            pred -= g[i] * si + 0.5 * si * hs;
        }
        if newton && mu < 1e-2 && pred >= 0.0 && pred <= tol * f.abs() {
            x.copy_from_slice(&xt[..p]);
            return Outcome {
                f,
                iterations: it + 1,
                converged: true,
            };
        }
        let (ft, psd_t) = eval(
            obj,
            &xt[..p],
            &mut gt[..p],
            &mut ht[..p * p],
            &mut hpt[..p * p],
        );
        if ft.is_finite() && ft < f {
            let rho = if pred > 0.0 { (f - ft) / pred } else { 0.0 };
            // A small decrease means convergence only for a lightly damped
            // (near-Newton) step.
            let small = f - ft <= tol * f.abs() && mu < 1e-2;
            x.copy_from_slice(&xt[..p]);
            f = ft;
            has_psd = psd_t;
            g[..p].copy_from_slice(&gt[..p]);
            h[..p * p].copy_from_slice(&ht[..p * p]);
            if has_psd {
                hp[..p * p].copy_from_slice(&hpt[..p * p]);
            }
            mu *= (1.0 - (2.0 * rho - 1.0).powi(3)).max(1.0 / 3.0);
            nu = 2.0;
            if small {
                return Outcome {
                    f,
                    iterations: it + 1,
                    converged: true,
                };
            }
        } else {
            mu *= nu;
            nu *= 2.0;
            if mu > 1e20 || !mu.is_finite() {
                // No damped step decreases f: a minimum to rounding.
                return Outcome {
                    f,
                    iterations: it + 1,
                    converged: true,
                };
            }
        }
    }
    Outcome {
        f,
        iterations: max_iter,
        converged: false,
    }
}

/// Whether the curvature block over `params` is numerically singular: after
/// scaling to unit diagonal (a correlation-like matrix), a zero diagonal or a
/// Cholesky pivot below `1e-7` (condition number above about 1e14) means the
/// parameters are not separately identified.
pub fn singular(h: &[f64], p: usize, params: &[usize]) -> bool {
    let n = params.len();
    let mut a = [0.0; MAXP * MAXP];
    let max_diag = params.iter().map(|&i| h[i * p + i]).fold(0.0f64, f64::max);
    for (r, &i) in params.iter().enumerate() {
        if !(h[i * p + i] > 1e-14 * max_diag) {
            return true;
        }
        for (c, &j) in params.iter().enumerate() {
            a[r * MAXP + c] = h[i * p + j] / (h[i * p + i] * h[j * p + j]).sqrt();
        }
    }
    if !cholesky(&mut a, n) {
        return true;
    }
    (0..n).any(|i| a[i * MAXP + i] < 1e-7)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rosenbrock_least_squares_converges() {
        // r = (10 (y − x²), 1 − x)
        let mut obj = |x: &[f64], g: &mut [f64], h: &mut [f64]| {
            let r = [10.0 * (x[1] - x[0] * x[0]), 1.0 - x[0]];
            let j = [[-20.0 * x[0], 10.0], [-1.0, 0.0]];
            for a in 0..2 {
                g[a] = r[0] * j[0][a] + r[1] * j[1][a];
                for b in 0..2 {
                    h[a * 2 + b] = j[0][a] * j[0][b] + j[1][a] * j[1][b];
                }
            }
            0.5 * (r[0] * r[0] + r[1] * r[1])
        };
        let mut x = [-1.2, 1.0];
        let out = minimize(&mut x, &[-5.0, -5.0], &[5.0, 5.0], &mut obj, 200, TIGHT);
        assert!(out.converged);
        assert!(
            (x[0] - 1.0).abs() < 1e-8 && (x[1] - 1.0).abs() < 1e-8,
            "{x:?}"
        );
    }

    /// Rosenbrock as least squares with the exact Hessian (indefinite at
    /// the start) and the Gauss–Newton matrix as the fallback.
    struct Rosen {
        evals: usize,
    }

    impl Objective for Rosen {
        fn eval(&mut self, x: &[f64], g: &mut [f64], h: &mut [f64]) -> f64 {
            let mut psd = [0.0; 4];
            self.eval_newton(x, g, h, &mut psd).0
        }

        fn eval_newton(
            &mut self,
            x: &[f64],
            g: &mut [f64],
            h: &mut [f64],
            psd: &mut [f64],
        ) -> (f64, bool) {
            self.evals += 1;
            let r = [10.0 * (x[1] - x[0] * x[0]), 1.0 - x[0]];
            let j = [[-20.0 * x[0], 10.0], [-1.0, 0.0]];
            for a in 0..2 {
                g[a] = r[0] * j[0][a] + r[1] * j[1][a];
                for b in 0..2 {
                    psd[a * 2 + b] = j[0][a] * j[0][b] + j[1][a] * j[1][b];
                    h[a * 2 + b] = psd[a * 2 + b];
                }
            }
            h[0] -= 20.0 * r[0];
            (0.5 * (r[0] * r[0] + r[1] * r[1]) + 1.0, true)
        }
    }

    #[test]
    fn newton_falls_back_where_the_hessian_is_indefinite() {
        // At (0, 1) the exact Hessian is diag(−199, 100).
        for start in [[0.0, 1.0], [-1.2, 1.0], [2.0, -1.0]] {
            let mut x = start;
            let mut obj = Rosen { evals: 0 };
            let out = minimize_newton(&mut x, &[-5.0, -5.0], &[5.0, 5.0], &mut obj, 200, TIGHT);
            assert!(out.converged, "{start:?} {out:?}");
            assert!(
                (x[0] - 1.0).abs() < 1e-8 && (x[1] - 1.0).abs() < 1e-8,
                "{start:?} {x:?}"
            );
        }
    }

    #[test]
    fn newton_stops_on_the_predicted_decrease() {
        // A quadratic bowl (minimum 1 at (3, −2)): a few steps, and the last
        // one is taken without evaluating it.
        let mut evals = 0;
        let mut obj = |x: &[f64], g: &mut [f64], h: &mut [f64]| {
            evals += 1;
            let d = [x[0] - 3.0, x[1] + 2.0];
            g[0] = 2.0 * d[0] + 0.5 * d[1];
            g[1] = 0.5 * d[0] + d[1];
            h.copy_from_slice(&[2.0, 0.5, 0.5, 1.0]);
            1.0 + d[0] * d[0] + 0.5 * d[0] * d[1] + 0.5 * d[1] * d[1]
        };
        let mut x = [0.0, 0.0];
        let out = minimize_newton(&mut x, &[-9.0, -9.0], &[9.0, 9.0], &mut obj, 100, LOOSE);
        assert!(out.converged);
        assert!(
            (x[0] - 3.0).abs() < 1e-9 && (x[1] + 2.0).abs() < 1e-9,
            "{x:?}"
        );
        assert!(
            out.iterations > evals - 1,
            "{out:?} after {evals} evaluations"
        );
        assert!(evals <= 5, "{evals} evaluations");
    }

    #[test]
    fn bounds_hold_the_solution_on_the_box() {
        // f = ½ (x − 3)², x ≤ 1.
        let mut obj = |x: &[f64], g: &mut [f64], h: &mut [f64]| {
            g[0] = x[0] - 3.0;
            h[0] = 1.0;
            0.5 * (x[0] - 3.0).powi(2)
        };
        let mut x = [0.0];
        let out = minimize(&mut x, &[-1.0], &[1.0], &mut obj, 100, TIGHT);
        assert!(out.converged);
        assert_eq!(x[0], 1.0);
    }

    #[test]
    fn collinear_columns_are_singular() {
        let h = [1.0, 2.0, 2.0, 4.0];
        assert!(singular(&h, 2, &[0, 1]));
        assert!(!singular(&[2.0, 0.5, 0.5, 1.0], 2, &[0, 1]));
    }
}
