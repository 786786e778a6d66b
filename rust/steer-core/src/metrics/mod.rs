//! Metrics over response tables. Inputs are integer-coded columns (one value
//! per response row); outputs are additive per-group sums, so cells computed
//! on parts of a table can be merged by adding them.

pub mod accuracy;

pub use accuracy::{accuracy_by_group, AccuracyCells, NO_ANSWER};
