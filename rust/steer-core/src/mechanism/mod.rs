//! Mechanisms: house allocation by top trading cycles and sealed-bid
//! auctions.

pub mod auction;
pub mod ttc;

pub use auction::{sealed_bid, AuctionOutcome, PriceRule};
pub use ttc::{top_trading_cycles, Ttc};
