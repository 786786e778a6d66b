//! Group keys as several dictionary-index columns combined in mixed radix.
//!
//! Scoring can accumulate straight into the combined key space when it is
//! small (a few model × element × domain combinations), which skips building
//! a dense code per row; only keys that occur are returned.

use crate::error::{Error, Result};

#[derive(Debug, Clone)]
pub struct KeyColumns<'a> {
    /// `columns[j][i]`: row `i`'s index into dictionary `j` (−1 = null).
    pub columns: Vec<&'a [i32]>,
    pub cardinalities: Vec<usize>,
    strides: Vec<usize>,
    space: usize,
}

impl<'a> KeyColumns<'a> {
    pub fn new(columns: Vec<&'a [i32]>, cardinalities: Vec<usize>) -> Result<Self> {
        if columns.len() != cardinalities.len() {
            return Err(Error::invalid("cardinalities", "one per key column"));
        }
        let n = columns.first().map_or(0, |c| c.len());
        if let Some(j) = columns.iter().position(|c| c.len() != n) {
            return Err(Error::invalid(
                "columns",
                format!("key column {j} has {} rows, expected {n}", columns[j].len()),
            ));
        }
        // Radix card + 1 so that null (−1 → 0) is a key value of its own.
        let mut strides = vec![0; columns.len()];
        let mut space: usize = 1;
        for j in (0..columns.len()).rev() {
            strides[j] = space;
            space = cardinalities[j]
                .checked_add(1)
                .and_then(|radix| space.checked_mul(radix))
                .ok_or_else(|| Error::invalid("columns", "too many distinct key combinations"))?;
        }
        Ok(KeyColumns {
            columns,
            cardinalities,
            strides,
            space,
        })
    }

    pub fn len(&self) -> usize {
        self.columns.first().map_or(0, |c| c.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of possible combined keys.
    pub fn space(&self) -> usize {
        self.space
    }

    /// Combined key of row `i`.
    #[inline]
    pub fn key(&self, i: usize) -> Result<usize> {
        let mut k = 0usize;
        for (j, col) in self.columns.iter().enumerate() {
            let v = col[i];
            if v < -1 || v as i64 >= self.cardinalities[j] as i64 {
                return Err(Error::InvalidRow {
                    field: format!("key column {j}"),
                    row: i,
                    message: format!("dictionary index {v} outside -1..{}", self.cardinalities[j]),
                });
            }
            k += (v + 1) as usize * self.strides[j];
        }
        Ok(k)
    }

    /// Dictionary indices (−1 = null) of a combined key, one per column.
    pub fn decode(&self, key: usize) -> Vec<i32> {
        self.strides
            .iter()
            .zip(&self.cardinalities)
            .map(|(&s, &c)| ((key / s) % (c + 1)) as i32 - 1)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_round_trip() {
        let a = [0, 1, -1];
        let b = [2, 0, 1];
        let k = KeyColumns::new(vec![&a, &b], vec![2, 3]).unwrap();
        assert_eq!(k.space(), 12);
        for i in 0..3 {
            assert_eq!(k.decode(k.key(i).unwrap()), vec![a[i], b[i]]);
        }
        assert!(KeyColumns::new(vec![&a], vec![1]).unwrap().key(1).is_err());
    }

    #[test]
    fn a_cardinality_at_the_top_of_usize_is_an_error() {
        let a = [0];
        assert!(KeyColumns::new(vec![&a], vec![usize::MAX]).is_err());
        assert!(KeyColumns::new(vec![&a, &a], vec![1 << 40, 1 << 40]).is_err());
    }
}
