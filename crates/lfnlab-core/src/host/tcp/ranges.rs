//! A set of disjoint byte ranges: the sender's SACKed ranges and the
//! receiver's out-of-order data. Inserting reports only the newly covered
//! parts, so re-reported SACK blocks cost O(log n), not O(block length).

use std::collections::BTreeMap;

#[derive(Clone, Debug, Default)]
pub struct RangeSet {
    /// start → end, disjoint and non-adjacent.
    map: BTreeMap<u64, u64>,
    /// Total bytes covered.
    bytes: u64,
}

impl RangeSet {
    pub fn new() -> RangeSet {
        RangeSet::default()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Insert [s, e); call `fresh(a, b)` for each sub-range not covered before,
    /// in increasing order. Returns the merged range that now contains [s, e).
    pub fn insert(&mut self, s: u64, e: u64, mut fresh: impl FnMut(u64, u64)) -> (u64, u64) {
        debug_assert!(s < e);
        let mut new_s = s;
        let mut cursor = s;
        // A range starting at or before s that reaches s merges in.
        if let Some((&ps, &pe)) = self.map.range(..=s).next_back() {
            if pe >= s {
                if pe >= e {
                    return (ps, pe);
                }
                new_s = ps;
                cursor = pe;
                self.map.remove(&ps);
                self.bytes -= pe - ps;
            }
        }
        // Ranges starting within [s, e] merge in; the gaps between them are fresh.
        let mut new_e = e;
        while let Some((rs, re)) = self.map.range(s..=e).next().map(|(a, b)| (*a, *b)) {
            if rs > cursor {
                fresh(cursor, rs);
            }
            cursor = cursor.max(re);
            new_e = new_e.max(re);
            self.map.remove(&rs);
            self.bytes -= re - rs;
        }
        if cursor < e {
            fresh(cursor, e);
        }
        self.map.insert(new_s, new_e);
        self.bytes += new_e - new_s;
        (new_s, new_e)
    }

    /// Remove everything below `x`.
    pub fn trim_below(&mut self, x: u64) {
        while let Some((&s, &e)) = self.map.first_key_value() {
            if s >= x {
                break;
            }
            self.map.remove(&s);
            self.bytes -= e - s;
            if e > x {
                self.map.insert(x, e);
                self.bytes += e - x;
                break;
            }
        }
    }

    /// The range containing `x`, if any.
    pub fn containing(&self, x: u64) -> Option<(u64, u64)> {
        self.map.range(..=x).next_back().filter(|(_, e)| **e > x).map(|(s, e)| (*s, *e))
    }

    pub fn first(&self) -> Option<(u64, u64)> {
        self.map.first_key_value().map(|(s, e)| (*s, *e))
    }

    pub fn last(&self) -> Option<(u64, u64)> {
        self.map.last_key_value().map(|(s, e)| (*s, *e))
    }

    /// Remove and return the first range.
    pub fn pop_first(&mut self) -> Option<(u64, u64)> {
        let r = self.map.pop_first();
        if let Some((s, e)) = r {
            self.bytes -= e - s;
        }
        r
    }

    /// Ranges from the highest down.
    pub fn iter_rev(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.map.iter().rev().map(|(s, e)| (*s, *e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn reports_only_fresh_parts() {
        let mut r = RangeSet::new();
        let mut got = vec![];
        r.insert(10, 20, |a, b| got.push((a, b)));
        r.insert(30, 40, |a, b| got.push((a, b)));
        got.clear();
        let m = r.insert(15, 35, |a, b| got.push((a, b)));
        assert_eq!(got, vec![(20, 30)]);
        assert_eq!(m, (10, 40));
        assert_eq!(r.bytes(), 30);
        got.clear();
        r.insert(12, 18, |a, b| got.push((a, b)));
        assert!(got.is_empty());
        r.trim_below(25);
        assert_eq!(r.first(), Some((25, 40)));
        assert_eq!(r.bytes(), 15);
    }

    proptest! {
        // The set agrees with a bitmap model, and fresh parts are exactly the new bits.
        #[test]
        fn matches_bitmap(ops in proptest::collection::vec((0u64..200, 1u64..30), 1..40)) {
            let mut r = RangeSet::new();
            let mut bits = vec![false; 256];
            for (s, len) in ops {
                let e = (s + len).min(256);
                let mut fresh = 0;
                r.insert(s, e, |a, b| {
                    for i in a..b { assert!(!bits[i as usize]); }
                    fresh += b - a;
                });
                let mut expect = 0;
                for i in s..e { if !bits[i as usize] { expect += 1; bits[i as usize] = true; } }
                prop_assert_eq!(fresh, expect);
                prop_assert_eq!(r.bytes(), bits.iter().filter(|b| **b).count() as u64);
            }
        }
    }
}
