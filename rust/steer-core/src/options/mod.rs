//! Answer options built around a proven key: the menus of numeric questions
//! (`numeric`), with a small seeded random stream of their own (`rng`).
//!
//! Python evaluates a template's named errors (its `wrong` expressions and
//! registered distractors); everything after that, the menu's construction,
//! formatting and checks, runs here.

pub mod numeric;
pub mod rng;

pub use numeric::{numeric_options, Menu, Request, FALLBACK_TAG, KEY_TAG, MENU_TRIES};
pub use rng::SplitMix64;
