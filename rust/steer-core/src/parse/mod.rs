//! Cheap guards run over raw input bytes before a real parser sees them, and
//! the reader of numeric answers in free-text replies (`free_text`).
//!
//! Recursive parsers (Arrow's JSON reader, Python's `json` and `tomllib`)
//! crash or raise on input nested thousands of levels deep, and text that is
//! not UTF-8 fails far from where it was read. One linear pass here finds both
//! and says where, so the caller can name the file and line.

pub mod free_text;
mod json_scan;

pub use free_text::{extract, extract_batch, Form, Reading};
pub use json_scan::{scan_json, Problem, Spot};
