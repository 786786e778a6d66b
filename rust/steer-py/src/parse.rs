//! Bindings for `steer_core::parse`: byte-level guards run before parsing.

use pyo3::prelude::*;
use steer_core::parse::{self, Problem};

/// The first problem in JSON / JSON Lines bytes, as (kind, line, column) with
/// kind "depth" (nesting deeper than `max_depth`) or "utf8" (not UTF-8);
/// `None` when there is none. Lines and columns are 1-based.
#[pyfunction]
fn scan_json(
    py: Python<'_>,
    data: &[u8],
    max_depth: usize,
) -> Option<(&'static str, usize, usize)> {
    py.detach(|| match parse::scan_json(data, max_depth)? {
        Problem::TooDeep(s) => Some(("depth", s.line, s.column)),
        Problem::BadUtf8(s) => Some(("utf8", s.line, s.column)),
    })
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(scan_json, m)?)?;
    Ok(())
}
