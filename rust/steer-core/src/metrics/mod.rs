//! Metrics over response tables.
//!
//! Inputs are integer-coded columns (one value per response row, as handed
//! over from Arrow/numpy without copies); outputs are additive per-group sums
//! ([`Cells`]), so cells computed on parts of a table merge by adding them.
//! Rates (exact match, normalized accuracy, ECE, …) are derived from cells.

pub mod bootstrap;
pub mod calibration;
pub mod cells;
pub mod consistency;
pub mod dependency;
pub mod errors;
pub mod groups;
pub mod input;
pub mod keys;
pub mod resample;
pub mod rng;
pub mod score;
pub mod units;

pub use bootstrap::{bootstrap, bootstrap_min, BootstrapOptions, BootstrapResult, Metric};
pub use calibration::{ece_equal_mass, ece_equal_mass_by_group, CalibrationRow};
pub use cells::Cells;
pub use consistency::{Constraint, Rule};
pub use dependency::dependency_robustness;
pub use errors::error_counts;
pub use groups::encode_groups;
pub use input::{Probs, Responses, Units, NO_ANSWER, NO_KEY, OFF_OPTIONS};
pub use keys::KeyColumns;
pub use resample::{binomial_draws, key_hash, paired_means};
pub use score::{score, score_keyed, MAX_DIRECT_SPACE};
