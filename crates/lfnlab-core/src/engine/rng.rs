//! Seeded random streams. One master seed (`[sim] seed`) derives every
//! component's stream from the component's stable name, so adding a component
//! never shifts another's numbers (STYLE point 10).

use rand_xoshiro::Xoshiro256PlusPlus;
use rand_xoshiro::rand_core::{Rng, SeedableRng};

/// SplitMix64 step, used to spread seed material.
fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A deterministic random stream.
#[derive(Clone)]
pub struct Stream(Xoshiro256PlusPlus);

impl Stream {
    /// The stream named `name` under `master_seed`.
    pub fn derive(master_seed: u64, name: &str) -> Stream {
        let mut h = splitmix64(master_seed);
        for b in name.bytes() {
            h = splitmix64(h ^ b as u64);
        }
        Stream(Xoshiro256PlusPlus::seed_from_u64(h))
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// Draw and discard `n` numbers: the stream ends where `n` draws leave it.
    #[inline]
    pub fn skip(&mut self, n: u64) {
        for _ in 0..n {
            self.0.next_u64();
        }
    }

    /// Uniform in [0, 1) with 53 bits.
    pub fn next_f64(&mut self) -> f64 {
        (self.0.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// True with probability p.
    pub fn bernoulli(&mut self, p: f64) -> bool {
        p > 0.0 && self.next_f64() < p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_distinct() {
        let a: Vec<u64> = (0..4).map({ let mut s = Stream::derive(7, "link[0]"); move |_| s.next_u64() }).collect();
        let b: Vec<u64> = (0..4).map({ let mut s = Stream::derive(7, "link[0]"); move |_| s.next_u64() }).collect();
        let c: Vec<u64> = (0..4).map({ let mut s = Stream::derive(7, "link[1]"); move |_| s.next_u64() }).collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn bernoulli_mean() {
        let mut s = Stream::derive(1, "x");
        let n = 200_000;
        let hits = (0..n).filter(|_| s.bernoulli(0.01)).count() as f64;
        // Binomial sd = sqrt(n p (1-p)) ≈ 44.5; allow 5 sd.
        assert!((hits - 2000.0).abs() < 5.0 * 44.5, "hits {hits}");
    }
}
