//! `steer._native`: thin bindings over steer-core. Each function extracts plain
//! slices while holding the GIL, then runs the core with the GIL released.

mod bayes;
mod bayesian;
mod convert;
mod decision;
mod draws;
mod errors;
mod extensive;
mod fit;
mod games;
mod limits;
mod mechanism;
mod metrics;
mod nash;
mod options;
mod parse;
mod pyjson;
mod repeated;
mod revealed;
mod sequential;
mod social;

use pyo3::prelude::*;

#[pymodule(gil_used = false)]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // The commit the extension was built from (build.rs), "unknown" in an sdist.
    m.add("__git_revision__", env!("STEER_GIT_REVISION"))?;
    errors::register(m)?;
    decision::register(m)?;
    draws::register(m)?;
    games::register(m)?;
    metrics::register(m)?;
    nash::register(m)?;
    extensive::register(m)?;
    repeated::register(m)?;
    sequential::register(m)?;
    bayesian::register(m)?;
    social::register(m)?;
    mechanism::register(m)?;
    bayes::register(m)?;
    parse::register(m)?;
    revealed::register(m)?;
    fit::register(m)?;
    options::register(m)?;
    pyjson::register(m)?;
    Ok(())
}
