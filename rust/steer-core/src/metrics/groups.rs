//! Dense group codes from several dictionary-encoded key columns, in one pass.

use crate::alloc::{try_vec, try_with_capacity};
use crate::error::Result;
use crate::metrics::keys::KeyColumns;
use std::collections::HashMap;

/// Key spaces up to this size use a direct lookup table; larger ones a hash map.
const DIRECT_LIMIT: usize = 1 << 24;

/// Combines key columns into dense group codes.
///
/// `columns[j][i]` is row `i`'s index into column `j`'s dictionary (−1 for
/// null) and `cardinalities[j]` that dictionary's size. Returns the code of
/// every row (numbered in order of first appearance) and, per code, the first
/// row that has it.
pub fn encode_groups(
    columns: &[&[i32]],
    cardinalities: &[usize],
) -> Result<(Vec<u32>, Vec<usize>)> {
    let keys = KeyColumns::new(columns.to_vec(), cardinalities.to_vec())?;
    let n = keys.len();
    let mut codes = try_with_capacity("rows", n)?;
    let mut first = Vec::new();
    if keys.space() <= DIRECT_LIMIT.max(n) {
        let mut table = try_vec("key space", keys.space(), u32::MAX)?;
        for i in 0..n {
            let slot = &mut table[keys.key(i)?];
            if *slot == u32::MAX {
                *slot = first.len() as u32;
                first.push(i);
            }
            codes.push(*slot);
        }
    } else {
        let mut table: HashMap<usize, u32> = HashMap::new();
        for i in 0..n {
            let next = first.len() as u32;
            let code = *table.entry(keys.key(i)?).or_insert_with(|| {
                first.push(i);
                next
            });
            codes.push(code);
        }
    }
    Ok((codes, first))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_follow_first_appearance() {
        let a = [0, 1, 0, -1, 1];
        let b = [2, 0, 2, 2, 0];
        let (codes, first) = encode_groups(&[&a, &b], &[2, 3]).unwrap();
        assert_eq!(codes, vec![0, 1, 0, 2, 1]);
        assert_eq!(first, vec![0, 1, 3]);
    }

    #[test]
    fn no_columns_is_one_group() {
        let (codes, first) = encode_groups(&[], &[]).unwrap();
        assert!(codes.is_empty() && first.is_empty());
    }

    #[test]
    fn bad_indices() {
        assert!(encode_groups(&[&[0, 5]], &[2]).is_err());
        assert!(encode_groups(&[&[0, -2]], &[2]).is_err());
        assert!(encode_groups(&[&[0], &[0, 1]], &[1, 2]).is_err());
    }
}
