//! Bindings for `steer_core::draws`: a numpy `Generator`'s `integers` and
//! `choice(n, k, replace=False)`, drawn from that Generator's
//! own bit generator through numpy's public C interface (the `capsule` of
//! its `bit_generator`, as numpy documents for extensions), so its stream
//! advances exactly as the method would advance it.

use crate::errors::{CoreError, InputError, InternalError};
use numpy::{IntoPyArray, PyArray1};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;
use std::ffi::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};
use steer_core::draws::{self, BitSource};

/// numpy's `bitgen_t` (numpy/random/bitgen.h), which the capsule points to.
#[repr(C)]
struct BitGen {
    state: *mut c_void,
    next_uint64: unsafe extern "C" fn(*mut c_void) -> u64,
    next_uint32: unsafe extern "C" fn(*mut c_void) -> u32,
    next_double: unsafe extern "C" fn(*mut c_void) -> f64,
    next_raw: unsafe extern "C" fn(*mut c_void) -> u64,
}

struct NumpyBits<'a>(&'a BitGen);

impl BitSource for NumpyBits<'_> {
    fn next_u32(&mut self) -> u32 {
        // SAFETY: the pointers come from a live bit generator's capsule, used
        // while its lock is held (see `with_bits`).
        unsafe { (self.0.next_uint32)(self.0.state) }
    }
    fn next_u64(&mut self) -> u64 {
        // SAFETY: as above.
        unsafe { (self.0.next_uint64)(self.0.state) }
    }
}

/// Runs `draw` on the raw bits of `rng` (a numpy Generator) under its bit
/// generator's lock, as the Generator's own methods do. The draws are a few
/// words, so the GIL stays held.
fn with_bits<T>(
    rng: &Bound<'_, PyAny>,
    draw: impl FnOnce(&mut NumpyBits<'_>) -> steer_core::Result<T>,
) -> PyResult<T> {
    let py = rng.py();
    let not_generator = || InputError::new_err("rng: expected a numpy.random.Generator");
    let bit_generator = rng
        .getattr(intern!(py, "bit_generator"))
        .map_err(|_| not_generator())?;
    let capsule = bit_generator
        .getattr(intern!(py, "capsule"))
        .map_err(|_| not_generator())?;
    let capsule = capsule.cast::<PyCapsule>().map_err(|_| not_generator())?;
    let pointer = capsule.pointer_checked(Some(c"BitGenerator"))?;
    let lock = bit_generator.getattr(intern!(py, "lock"))?;
    lock.call_method0(intern!(py, "acquire"))?;
    // SAFETY: a capsule named "BitGenerator" holds a bitgen_t that lives as
    // long as its bit generator, which `bit_generator` keeps alive here; the
    // lock keeps other threads off its state meanwhile.
    let bitgen = unsafe { pointer.cast::<BitGen>().as_ref() };
    let outcome = catch_unwind(AssertUnwindSafe(|| draw(&mut NumpyBits(bitgen))));
    lock.call_method0(intern!(py, "release"))?;
    match outcome {
        Ok(result) => result.map_err(|e| CoreError(e).into()),
        Err(_) => Err(InternalError::new_err(
            "internal error in steer-core: a panic while drawing (please report this)",
        )),
    }
}

/// `rng.integers(low, high, size=size)` as a flat int64 array.
#[pyfunction]
fn integers<'py>(
    rng: &Bound<'py, PyAny>,
    low: i64,
    high: i64,
    size: usize,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    let out = with_bits(rng, |bits| {
        let mut out = steer_core::alloc::try_vec("size", size, 0i64)?;
        draws::integers(bits, low, high, &mut out)?;
        Ok(out)
    })?;
    Ok(out.into_pyarray(rng.py()))
}

/// `int(rng.integers(low, high))`.
#[pyfunction]
fn integer(rng: &Bound<'_, PyAny>, low: i64, high: i64) -> PyResult<i64> {
    with_bits(rng, |bits| {
        let mut out = [0i64];
        draws::integers(bits, low, high, &mut out)?;
        Ok(out[0])
    })
}

/// `rng.choice(population, size, replace=False)` as a list of ints.
#[pyfunction]
fn sample(rng: &Bound<'_, PyAny>, population: u64, size: usize) -> PyResult<Vec<u64>> {
    with_bits(rng, |bits| draws::sample(bits, population, size))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(integer, m)?)?;
    m.add_function(wrap_pyfunction!(integers, m)?)?;
    m.add_function(wrap_pyfunction!(sample, m)?)?;
    Ok(())
}
