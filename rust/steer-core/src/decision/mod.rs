//! Single-agent decision problems: lotteries and expected values.

pub mod bayes;
pub mod lottery;

pub use bayes::{bayes_rule, posterior};
pub use lottery::{argmax_expected_value, expected_value, expected_values, PROB_TOLERANCE};
