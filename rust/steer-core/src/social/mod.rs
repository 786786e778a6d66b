//! Social choice: voting rules and Pareto comparisons over preference
//! profiles given as (ranking, count) pairs.
//!
//! Every rule reports all tied winners; choosing among them is the question's
//! business (STEER's Copeland case ends in a tie that must be reported).

pub mod axioms;
pub mod borda;
pub mod copeland;
pub mod pairwise;
pub mod pareto;
pub mod plurality;
pub mod profile;

pub use axioms::{check_axioms, check_some_axioms, Axiom, AxiomReport, Counterexample, Rule};
pub use borda::borda;
pub use copeland::copeland;
pub use pairwise::{condorcet_winner, majority_matrix};
pub use pareto::{pareto_dominance, pareto_dominates_vector, pareto_optimal};
pub use plurality::plurality;
pub use profile::{winners, Profile, Tally};
