//! Game-theory solvers. Each file holds one kind of game or one solution
//! concept.

pub mod bayesian;
pub mod dominance;
pub mod extensive;
pub mod irds;
pub mod normal_form;
pub mod pure_nash;
pub mod repeated;
pub mod sequential;
pub mod support_enumeration;

pub use bayesian::{BayesBestResponse, BayesianGame};
pub use dominance::{
    dominance_batch, dominant_strategy, dominated_strategies, dominates, dominators,
    DominanceBatch, Strength,
};
pub use extensive::{BackwardInduction, GameTree};
pub use irds::{irds_batch, iterated_strict_dominance, Elimination, Irds};
pub use normal_form::{best_response_batch, Bimatrix, Player};
pub use pure_nash::{is_pure_nash, pure_nash, pure_nash_batch};
pub use repeated::{
    feasible_hull, grim_trigger, is_enforceable, is_feasible, pure_minmax, GrimTrigger, Minmax,
};
pub use sequential::{Assessment, ImperfectGame, NodeKind};
pub use support_enumeration::{
    all_equilibria, all_equilibria_batch, regret, EquilibriumBatch, MixedEquilibrium,
};
