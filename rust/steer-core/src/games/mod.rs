//! Game-theory solvers. Each file holds one kind of game and its solution
//! concepts.

pub mod normal_form;

pub use normal_form::{best_response_batch, Bimatrix, Player};
