//! The value histograms of a table at each power of two: how published octal runs are
//! reported (how many n < L have g(n) = v, for L = 1, 2, 4, ... and for the table's end).
//!
//! Algorithm: one pass over g, adding each value to a running histogram and copying the
//! histogram out whenever the positions counted reach the next power of two, then once at
//! the end when N + 1 is not one. Cost: O(N + log N * V), V the largest value plus one.
//!
//! Invariant: the histogram of the L-th row counts g(0..L), so its counts add up to L.

/// The histogram of the values g(0..below): `counts[v]` is how many n < `below` have
/// g(n) = v, up to the largest value of the whole table (a count fits in u64: a table holds
/// at most 2^64 positions).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Histogram {
    /// The positions counted: g(0..below).
    pub below: usize,
    /// How many of them have each value.
    pub counts: Vec<u64>,
}

/// The histograms of g(0..L) for L = 1, 2, 4, ... up to `values.len()`, and for
/// L = `values.len()` itself when it is not a power of two; none for an empty table. Every
/// row is as long as the largest value of the table plus one.
pub fn at_powers_of_two(values: &[u16]) -> Vec<Histogram> {
    let width = values.iter().copied().max().map_or(0, |m| m as usize + 1);
    let mut counts = vec![0u64; width];
    let mut rows = Vec::new();
    let mut next = 1usize;
    for (n, &v) in values.iter().enumerate() {
        counts[v as usize] += 1;
        if n + 1 == next {
            rows.push(Histogram {
                below: n + 1,
                counts: counts.clone(),
            });
            next = next.saturating_mul(2);
        }
    }
    if !values.is_empty() && !values.len().is_power_of_two() {
        rows.push(Histogram {
            below: values.len(),
            counts,
        });
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn officers_first_sixteen_values_count_as_the_oeis_list_says() {
        // g(0..16) of Officers (0.6), OEIS A046695: 0 0 1 2 0 1 2 3 1 2 3 4 0 3 4 2, then 1 3 2.
        let g = [0u16, 0, 1, 2, 0, 1, 2, 3, 1, 2, 3, 4, 0, 3, 4, 2, 1, 3, 2];
        let rows = at_powers_of_two(&g);
        let below: Vec<usize> = rows.iter().map(|r| r.below).collect();
        assert_eq!(below, [1, 2, 4, 8, 16, 19]);
        assert_eq!(rows[4].counts, [4, 3, 4, 3, 2]);
        assert_eq!(rows[5].counts, [4, 4, 5, 4, 2]);
        assert_eq!(rows[2].counts, [2, 1, 1, 0, 0]);
    }

    #[test]
    fn every_row_adds_up_to_its_length_and_counts_by_direct_count() {
        let g: Vec<u16> = (0..1000u32).map(|i| (i * 7919 % 13) as u16).collect();
        for len in [0, 1, 2, 3, 64, 65, 1000] {
            let rows = at_powers_of_two(&g[..len]);
            for row in &rows {
                assert_eq!(row.counts.iter().sum::<u64>(), row.below as u64);
                for (v, &c) in row.counts.iter().enumerate() {
                    let direct = g[..row.below].iter().filter(|&&x| x as usize == v).count();
                    assert_eq!(
                        c, direct as u64,
                        "len {len}, below {}, value {v}",
                        row.below
                    );
                }
            }
            assert_eq!(rows.last().map_or(0, |r| r.below), len);
        }
    }
}
