//! Fallible allocation for sizes that come from the input.
//!
//! `vec![x; n]` aborts the whole process when `n` elements cannot be
//! allocated (and panics when the size overflows); neither may reach Python.
//! Every allocation whose length is derived from caller-supplied sizes (group
//! counts, bins, resamples, metrics, parents, units) goes through these
//! helpers instead, which return [`Error::TooLarge`]. Each is a single
//! allocation, exactly like the infallible form it replaces.

use crate::error::{Error, Result};
use std::alloc::Layout;

/// `a × b`, or [`Error::TooLarge`] naming `what` when the product overflows.
pub fn mul(what: &str, a: usize, b: usize) -> Result<usize> {
    a.checked_mul(b).ok_or_else(|| Error::too_large(what, None))
}

/// `a + b`, or [`Error::TooLarge`] naming `what` when the sum overflows.
pub fn add(what: &str, a: usize, b: usize) -> Result<usize> {
    a.checked_add(b).ok_or_else(|| Error::too_large(what, None))
}

/// An empty vector with room for exactly `len` elements.
pub fn try_with_capacity<T>(what: &str, len: usize) -> Result<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(len)
        .map_err(|_| Error::too_large(what, Some(len)))?;
    Ok(v)
}

/// Fails unless `len` elements of `T` could be allocated right now: for
/// buffers that a parallel collect allocates itself (it would abort).
pub fn check_room<T>(what: &str, len: usize) -> Result<()> {
    try_with_capacity::<T>(what, len).map(drop)
}

/// `len` copies of `value`: the fallible `vec![value; len]`.
pub fn try_vec<T: Clone>(what: &str, len: usize, value: T) -> Result<Vec<T>> {
    let mut v = try_with_capacity(what, len)?;
    v.resize(len, value);
    Ok(v)
}

/// Plain numbers whose all-zero bit pattern is the value zero.
///
/// # Safety
/// Implement only for types for which every byte being 0 is a valid value.
pub unsafe trait Zero: Copy {}
// SAFETY: all-zero bits are 0 (integers) and +0.0 (floats).
unsafe impl Zero for u8 {}
// SAFETY: as above.
unsafe impl Zero for u32 {}
// SAFETY: as above.
unsafe impl Zero for u64 {}
// SAFETY: as above.
unsafe impl Zero for usize {}
// SAFETY: as above.
unsafe impl Zero for i32 {}
// SAFETY: as above.
unsafe impl Zero for f64 {}

/// `len` zeros: the fallible `vec![0; len]`, allocated zeroed like it (large
/// buffers come from fresh zero pages that cost nothing until written).
pub fn try_zeros<T: Zero>(what: &str, len: usize) -> Result<Vec<T>> {
    if len == 0 || std::mem::size_of::<T>() == 0 {
        return try_vec(what, len, zero());
    }
    let layout = Layout::array::<T>(len).map_err(|_| Error::too_large(what, Some(len)))?;
    // SAFETY: `layout` has a non-zero size (len > 0, T not zero-sized).
    let ptr = unsafe { std::alloc::alloc_zeroed(layout) } as *mut T;
    if ptr.is_null() {
        return Err(Error::too_large(what, Some(len)));
    }
    // SAFETY: `ptr` comes from the global allocator with `Layout::array::<T>(len)`,
    // the layout a `Vec<T>` of capacity `len` uses; all `len` elements are
    // initialised (zero bits are a valid `T` by the `Zero` contract).
    Ok(unsafe { Vec::from_raw_parts(ptr, len, len) })
}

fn zero<T: Zero>() -> T {
    // SAFETY: zero bits are a valid `T` by the `Zero` contract.
    unsafe { std::mem::zeroed() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_sizes_allocate_like_vec() {
        assert_eq!(try_zeros::<u64>("x", 5).unwrap(), vec![0u64; 5]);
        assert_eq!(try_zeros::<f64>("x", 3).unwrap(), vec![0.0; 3]);
        assert!(try_zeros::<u32>("x", 0).unwrap().is_empty());
        assert_eq!(try_vec("x", 2, f64::NAN).unwrap().len(), 2);
        assert_eq!(try_with_capacity::<u8>("x", 7).unwrap().capacity(), 7);
        assert_eq!(mul("x", 3, 4).unwrap(), 12);
    }

    #[test]
    fn huge_sizes_are_errors_not_aborts() {
        let too_large = |e: Error| matches!(e, Error::TooLarge { .. });
        // Past isize::MAX bytes (a capacity overflow) ...
        assert!(too_large(
            try_zeros::<u64>("x", usize::MAX / 2).unwrap_err()
        ));
        assert!(too_large(try_vec("x", usize::MAX / 2, 1.5f64).unwrap_err()));
        // ... and within it but far past any machine's memory (2^50 bytes).
        assert!(too_large(try_zeros::<u8>("x", 1 << 50).unwrap_err()));
        assert!(too_large(try_vec("x", 1usize << 47, 0u64).unwrap_err()));
        assert!(too_large(check_room::<u64>("x", 1 << 47).unwrap_err()));
        assert!(too_large(mul("x", usize::MAX, 2).unwrap_err()));
        assert!(too_large(add("x", usize::MAX, 1).unwrap_err()));
        let msg = try_zeros::<u8>("cells", 1 << 50).unwrap_err().to_string();
        assert_eq!(
            msg,
            format!("cells: {} elements are too many to allocate", 1u64 << 50)
        );
        assert_eq!(
            mul("cells", usize::MAX, 2).unwrap_err().to_string(),
            "cells: the requested size overflows"
        );
    }
}
