//! Bindings for `steer_core::pyjson`: payloads written as Python's json
//! writes them, walking the Python objects directly.

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString};
use std::fmt::Write;
use steer_core::pyjson;

/// Deepest nesting written here; deeper trees go back to Python's writer.
const MAX_DEPTH: usize = 64;

/// `json.dumps(value, separators=(",", ":"))` when `value` is a tree of
/// plain JSON values, so that `json.loads` of the text gives back an equal
/// tree: dicts (exactly) with str keys, lists (exactly), str, int within 64
/// bits, finite floats (subclasses such as numpy's float64 included), bool
/// and None. None for anything else (a tuple, a non-str key, NaN, a big
/// int…), which the caller writes and checks the slow way.
#[pyfunction]
fn plain_json(value: &Bound<'_, PyAny>) -> Option<String> {
    let mut out = String::with_capacity(256);
    write_value(value, &mut out, 0).then_some(out)
}

fn write_value(v: &Bound<'_, PyAny>, out: &mut String, depth: usize) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    if v.is_none() {
        out.push_str("null");
    } else if let Ok(b) = v.cast_exact::<PyBool>() {
        out.push_str(if b.is_true() { "true" } else { "false" });
    } else if let Ok(i) = v.cast_exact::<PyInt>() {
        let Ok(n) = i.extract::<i64>() else {
            return false;
        };
        write!(out, "{n}").expect("writing to a String cannot fail");
    } else if let Ok(f) = v.cast::<PyFloat>() {
        let x = f.value();
        if !x.is_finite() {
            return false;
        }
        pyjson::push_float(out, x);
    } else if let Ok(s) = v.cast_exact::<PyString>() {
        // Fails on a lone surrogate, which Rust strings cannot hold.
        let Ok(s) = s.to_str() else {
            return false;
        };
        pyjson::push_str(out, s);
    } else if let Ok(list) = v.cast_exact::<PyList>() {
        out.push('[');
        for (k, item) in list.iter().enumerate() {
            if k > 0 {
                out.push(',');
            }
            if !write_value(&item, out, depth + 1) {
                return false;
            }
        }
        out.push(']');
    } else if let Ok(dict) = v.cast_exact::<PyDict>() {
        out.push('{');
        for (k, (key, item)) in dict.iter().enumerate() {
            let Ok(key) = key.cast_exact::<PyString>() else {
                return false;
            };
            let Ok(key) = key.to_str() else {
                return false;
            };
            if k > 0 {
                out.push(',');
            }
            pyjson::push_str(out, key);
            out.push(':');
            if !write_value(&item, out, depth + 1) {
                return false;
            }
        }
        out.push('}');
    } else {
        return false;
    }
    true
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(plain_json, m)?)?;
    Ok(())
}
