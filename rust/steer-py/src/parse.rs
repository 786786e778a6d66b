//! Bindings for `steer_core::parse`: byte-level guards run before parsing,
//! and the numeric answers of free-text replies.

use crate::errors::{run_detached, InputError};
use numpy::{IntoPyArray, PyArray1};
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use steer_core::parse::{self, free_text, Form, Problem};

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

/// Values (NaN: no answer) and percent marks, one per reply.
type Answers<'py> = (Bound<'py, PyArray1<f64>>, Bound<'py, PyArray1<bool>>);

fn form_of(name: &str) -> PyResult<Form> {
    Form::parse(name).ok_or_else(|| {
        InputError::new_err(format!(
            "forms: {name:?} is not an answer form (use number, money or percent)"
        ))
    })
}

/// The numeric answers of free-text replies, read in their questions'
/// answer forms (`forms`: one name for all, or one per reply): values (NaN
/// where a reply has no answer) and whether each carried a percent mark.
#[pyfunction]
fn extract_answers<'py>(
    py: Python<'py>,
    replies: Vec<PyBackedStr>,
    forms: &Bound<'py, PyAny>,
) -> PyResult<Answers<'py>> {
    let forms: Vec<Form> = if let Ok(name) = forms.extract::<PyBackedStr>() {
        vec![form_of(&name)?]
    } else {
        let names: Vec<PyBackedStr> = forms
            .extract()
            .map_err(|_| InputError::new_err("forms: expected a str or a list of str"))?;
        names.iter().map(|n| form_of(n)).collect::<PyResult<_>>()?
    };
    let (values, marks) = run_detached(py, || {
        let texts: Vec<&str> = replies.iter().map(|r| &**r).collect();
        let mut values = vec![0.0; texts.len()];
        let mut marks = vec![false; texts.len()];
        free_text::extract_batch(&texts, &forms, &mut values, &mut marks)?;
        Ok((values, marks))
    })?;
    Ok((values.into_pyarray(py), marks.into_pyarray(py)))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(scan_json, m)?)?;
    m.add_function(wrap_pyfunction!(extract_answers, m)?)?;
    Ok(())
}
