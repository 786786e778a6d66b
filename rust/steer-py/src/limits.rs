//! Upper bounds on sizes that reach allocations in the core, checked at the
//! boundary so a huge request is an `InputError`, never an allocation abort.
//! The same numbers as `steer._limits` (the Python API checks them first).

use crate::errors::InputError;
use pyo3::prelude::*;

/// ECE bins per group.
pub const MAX_BINS: usize = 1_000;
/// Bootstrap resamples.
pub const MAX_RESAMPLES: usize = 100_000;
/// Groups × bins cells held at once.
pub const MAX_CELLS: usize = 50_000_000;

/// Groups (or parents of groups) in one call.
pub const MAX_GROUPS: usize = MAX_CELLS;
/// Draws asked of the binomial sampler in one call.
pub const MAX_DRAWS: usize = MAX_CELLS;

/// `value` must lie in 1..=`max` (`what` names the argument).
pub fn check_size(what: &str, value: usize, max: usize) -> PyResult<()> {
    if value == 0 {
        return Err(InputError::new_err(format!(
            "{what}: {value} is outside 1..={max}"
        )));
    }
    check_at_most(what, value, max)
}

/// `value` must be at most `max` (0 allowed: an empty result).
pub fn check_at_most(what: &str, value: usize, max: usize) -> PyResult<()> {
    if value > max {
        return Err(InputError::new_err(format!(
            "{what}: {value} (more than {max}) is too many"
        )));
    }
    Ok(())
}

/// `groups` × `bins` cells must fit under `MAX_CELLS`.
pub fn check_cells(groups: usize, bins: usize) -> PyResult<()> {
    check_size("bins", bins, MAX_BINS)?;
    match groups.checked_mul(bins) {
        Some(cells) if cells <= MAX_CELLS => Ok(()),
        _ => Err(InputError::new_err(format!(
            "{groups} groups × {bins} bins is more than {MAX_CELLS} cells"
        ))),
    }
}

/// Kept bootstrap replicates (groups × metrics × resamples values) must fit
/// under `MAX_CELLS`.
pub fn check_replicates(groups: usize, metrics: usize, resamples: usize) -> PyResult<()> {
    let values = groups
        .checked_mul(metrics.max(1))
        .and_then(|v| v.checked_mul(resamples));
    match values {
        Some(v) if v <= MAX_CELLS => Ok(()),
        _ => Err(InputError::new_err(format!(
            "{groups} groups × {resamples} resamples of replicates is more than {MAX_CELLS} \
             values; use fewer resamples or coarser groups"
        ))),
    }
}
