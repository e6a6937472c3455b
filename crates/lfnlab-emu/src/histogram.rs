//! A fixed-bucket logarithmic histogram of nanosecond values (lateness):
//! constant memory, no per-sample storage, about 3 % relative resolution.
//!
//! Values below 32 ns have a bucket each; above, every power of two is split
//! into 32 equal buckets (the HdrHistogram layout with 5 sub-bucket bits).

/// Sub-buckets per power of two = 2^SUB_BITS.
const SUB_BITS: u32 = 5;
const SUB: u64 = 1 << SUB_BITS;
/// Buckets for the whole u64 range: 32 linear + 59 octaves (2^5 … 2^63) × 32.
const BUCKETS: usize = (SUB + (64 - SUB_BITS as u64) * SUB) as usize;

#[derive(Clone, Debug)]
pub struct LogHistogram {
    counts: Box<[u64; BUCKETS]>,
    count: u64,
    max_ns: u64,
    sum_ns: u128,
}

impl Default for LogHistogram {
    fn default() -> LogHistogram {
        LogHistogram { counts: Box::new([0; BUCKETS]), count: 0, max_ns: 0, sum_ns: 0 }
    }
}

#[inline]
fn index(v: u64) -> usize {
    if v < SUB {
        return v as usize;
    }
    let e = 63 - v.leading_zeros(); // ≥ SUB_BITS
    let mantissa = (v >> (e - SUB_BITS)) & (SUB - 1);
    ((e - SUB_BITS + 1) as u64 * SUB + mantissa) as usize
}

/// The largest value that falls in bucket `i`.
fn upper(i: usize) -> u64 {
    let i = i as u64;
    if i < SUB {
        return i;
    }
    let shift = i / SUB - 1; // e − SUB_BITS
    let lower = (SUB + i % SUB) << shift;
    lower + ((1u64 << shift) - 1)
}

impl LogHistogram {
    #[inline]
    pub fn record(&mut self, v_ns: u64) {
        self.counts[index(v_ns)] += 1;
        self.count += 1;
        self.max_ns = self.max_ns.max(v_ns);
        self.sum_ns += v_ns as u128;
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    pub fn max_ns(&self) -> u64 {
        self.max_ns
    }

    /// Mean, ns (0 when empty).
    pub fn mean_ns(&self) -> u64 {
        if self.count == 0 { 0 } else { (self.sum_ns / self.count as u128) as u64 }
    }

    /// The value at quantile `num/den` (nearest rank, reported as its
    /// bucket's upper edge, never above the maximum); `None` when empty.
    pub fn quantile_ns(&self, num: u64, den: u64) -> Option<u64> {
        if self.count == 0 {
            return None;
        }
        let rank = ((self.count as u128 * num as u128).div_ceil(den as u128) as u64).clamp(1, self.count);
        let mut seen = 0;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return Some(upper(i).min(self.max_ns));
            }
        }
        Some(self.max_ns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_tile_the_range() {
        for v in [0u64, 1, 31, 32, 33, 63, 64, 65, 1000, 20_000, 1 << 40, u64::MAX] {
            let i = index(v);
            assert!(i < BUCKETS, "{v}");
            assert!(upper(i) >= v && (i == 0 || upper(i - 1) < v), "{v} in bucket {i}");
        }
        assert_eq!(index(u64::MAX), BUCKETS - 1);
        // Relative width ≤ 1/32 above 32 ns.
        let i = index(20_000);
        assert!(upper(i) - upper(i - 1) <= 20_000 / 32);
    }

    #[test]
    fn quantiles_by_nearest_rank() {
        let mut h = LogHistogram::default();
        assert_eq!(h.quantile_ns(1, 2), None);
        for v in 1..=100u64 {
            h.record(v * 1000);
        }
        // Nearest rank: p50 is the 50th value, 50 µs, within one bucket (≤ 3 %).
        let p50 = h.quantile_ns(500, 1000).unwrap();
        assert!((50_000..=50_000 + 50_000 / 32).contains(&p50), "{p50}");
        let p99 = h.quantile_ns(990, 1000).unwrap();
        assert!((99_000..=99_000 + 99_000 / 32).contains(&p99), "{p99}");
        assert_eq!(h.quantile_ns(1, 1), Some(100_000), "p100 is the maximum");
        assert_eq!((h.count(), h.max_ns(), h.mean_ns()), (100, 100_000, 50_500));
    }
}
