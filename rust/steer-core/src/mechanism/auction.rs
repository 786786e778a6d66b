//! Sealed-bid single-item auctions.
//!
//! The highest bid wins; ties go to the lowest-numbered bidder (a fixed rule
//! keeps answers reproducible; questions that want a coin flip should avoid
//! tied bids). Bids are compared exactly.

use crate::error::{Error, Result};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PriceRule {
    /// The winner pays its own bid.
    FirstPrice,
    /// The winner pays the highest competing bid (or the reserve, if higher).
    SecondPrice,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AuctionOutcome {
    /// `None` when no bid reaches the reserve price.
    pub winner: Option<usize>,
    /// The price paid (0 when unsold).
    pub price: f64,
}

/// Outcome of a sealed-bid auction with an optional reserve price: bids below
/// the reserve are ignored.
pub fn sealed_bid(bids: &[f64], rule: PriceRule, reserve: Option<f64>) -> Result<AuctionOutcome> {
    if let Some(i) = bids.iter().position(|b| !b.is_finite()) {
        return Err(Error::invalid("bids", format!("bid {i} is not finite")));
    }
    if reserve.is_some_and(|r| !r.is_finite()) {
        return Err(Error::invalid("reserve", "must be finite"));
    }
    let floor = reserve.unwrap_or(f64::NEG_INFINITY);
    let mut winner: Option<usize> = None;
    for (i, &b) in bids.iter().enumerate() {
        if b >= floor && winner.is_none_or(|w| b > bids[w]) {
            winner = Some(i);
        }
    }
    let Some(w) = winner else {
        return Ok(AuctionOutcome {
            winner: None,
            price: 0.0,
        });
    };
    let price = match rule {
        PriceRule::FirstPrice => bids[w],
        PriceRule::SecondPrice => {
            let second = bids
                .iter()
                .enumerate()
                .filter(|&(i, _)| i != w)
                .map(|(_, &b)| b)
                .fold(f64::NEG_INFINITY, f64::max);
            // Alone above the reserve (or alone at all): pay the reserve, or
            // nothing without one.
            let price = second.max(floor);
            if price.is_finite() {
                price
            } else {
                0.0
            }
        }
    };
    Ok(AuctionOutcome {
        winner: Some(w),
        price,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_and_second_price() {
        let bids = [30., 70., 50.];
        let f = sealed_bid(&bids, PriceRule::FirstPrice, None).unwrap();
        assert_eq!((f.winner, f.price), (Some(1), 70.));
        let s = sealed_bid(&bids, PriceRule::SecondPrice, None).unwrap();
        assert_eq!((s.winner, s.price), (Some(1), 50.));
    }

    #[test]
    fn ties_go_to_the_lowest_index_and_pay_the_tied_bid() {
        let bids = [40., 90., 90.];
        let s = sealed_bid(&bids, PriceRule::SecondPrice, None).unwrap();
        assert_eq!((s.winner, s.price), (Some(1), 90.));
    }

    #[test]
    fn reserve_prices() {
        let bids = [30., 70., 50.];
        let s = sealed_bid(&bids, PriceRule::SecondPrice, Some(60.)).unwrap();
        assert_eq!((s.winner, s.price), (Some(1), 60.));
        let s = sealed_bid(&bids, PriceRule::SecondPrice, Some(80.)).unwrap();
        assert_eq!((s.winner, s.price), (None, 0.));
        let s = sealed_bid(&[10.], PriceRule::SecondPrice, None).unwrap();
        assert_eq!((s.winner, s.price), (Some(0), 0.));
        let f = sealed_bid(&bids, PriceRule::FirstPrice, Some(70.)).unwrap();
        assert_eq!((f.winner, f.price), (Some(1), 70.));
        assert_eq!(
            sealed_bid(&[], PriceRule::FirstPrice, None).unwrap().winner,
            None
        );
    }

    #[test]
    fn bad_bids() {
        assert!(sealed_bid(&[1., f64::NAN], PriceRule::FirstPrice, None).is_err());
        assert!(sealed_bid(&[1.], PriceRule::FirstPrice, Some(f64::INFINITY)).is_err());
    }
}
