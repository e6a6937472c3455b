//! Samplers for the Web workload distributions (spec 02 §3.2.3). Every
//! sampler takes the caller's `Stream` and reads it only through
//! `next_u64`/`next_f64`, so one seed fixes every draw. The number of draws
//! each sampler consumes is stated in its doc comment, because the catalogue
//! build order (§3.2.2) depends on it.

use std::f64::consts::PI;

use crate::engine::rng::Stream;

/// Uniform in (0, 1]: `1 − next_f64()`. Logarithms and negative powers of it
/// stay finite, which guards the inverse-CDF samplers against u = 0.
fn open_unit(rng: &mut Stream) -> f64 {
    1.0 - rng.next_f64()
}

/// Uniform integer in `0..n`, without modulo bias (Lemire's multiply-and-reject
/// method on 64-bit draws). `n = 0` returns 0 and draws nothing. Consumes one
/// `next_u64` except with probability < n/2^64 per extra draw.
pub fn uniform_index(rng: &mut Stream, n: usize) -> usize {
    if n <= 1 {
        return 0;
    }
    let range = n as u64;
    // Values of the low word below `threshold` = 2^64 mod n belong to an
    // incomplete block and are rejected, so every index has exactly
    // ⌊2^64 / n⌋ accepted preimages.
    let threshold = range.wrapping_neg() % range;
    loop {
        let m = rng.next_u64() as u128 * range as u128;
        if (m as u64) >= threshold {
            return (m >> 64) as usize;
        }
    }
}

/// Standard normal Z by the Box–Muller transform, cosine branch only:
/// Z = √(−2 ln u₁) · cos(2π u₂) with u₁ ∈ (0, 1], u₂ ∈ [0, 1). The sine twin
/// is discarded so the sampler keeps no state between calls. Consumes two
/// `next_f64`; |Z| ≤ √(2 · 53 ln 2) ≈ 8.57, always finite.
pub fn standard_normal(rng: &mut Stream) -> f64 {
    let u1 = open_unit(rng);
    let u2 = rng.next_f64();
    (-2.0 * u1.ln()).sqrt() * (2.0 * PI * u2).cos()
}

/// Lognormal: exp(μ + σ·Z), Z from `standard_normal` (two `next_f64`).
/// The median is e^μ, the mean e^(μ + σ²/2).
pub fn lognormal(rng: &mut Stream, mu: f64, sigma: f64) -> f64 {
    (mu + sigma * standard_normal(rng)).exp()
}

/// Pareto(α, k): P(X > x) = (k/x)^α for x ≥ k, by inverse CDF
/// X = k · u^(−1/α) with u ∈ (0, 1] (never 0, so X is finite: at most
/// k · 2^(53/α)). One `next_f64`. Median k · 2^(1/α).
pub fn pareto(rng: &mut Stream, alpha: f64, k: f64) -> f64 {
    k * open_unit(rng).powf(-1.0 / alpha)
}

/// Geometric on {1, 2, …} with mean 1/p (spec 02 §6 point 21):
/// P(N > n) = (1 − p)^n, by inverse CDF N = max(1, ⌈ln u / ln(1 − p)⌉),
/// u ∈ (0, 1]. `mean ≤ 1` (or NaN) gives 1 always. One `next_f64`.
/// Saturates at `u64::MAX` for absurd means.
pub fn geometric_from_one(rng: &mut Stream, mean: f64) -> u64 {
    let u = open_unit(rng);
    if mean.is_nan() || mean <= 1.0 {
        return 1;
    }
    let p = 1.0 / mean;
    let n = (u.ln() / (-p).ln_1p()).ceil();
    // `as` saturates (and maps NaN to 0), so the max(1) covers every case.
    (n as u64).max(1)
}

/// Fisher–Yates shuffle: for i = n−1 down to 1, swap v[i] with v[j],
/// j uniform in 0..=i from `uniform_index` (one `next_u64` per step, barring
/// rejections). Every permutation is equally likely.
pub fn shuffle<T>(rng: &mut Stream, v: &mut [T]) {
    for i in (1..v.len()).rev() {
        let j = uniform_index(rng, i + 1);
        v.swap(i, j);
    }
}

/// Standard normal CDF Φ(x) = ½ · erfc(−x/√2), with erfc from the Chebyshev
/// fit of Numerical Recipes (`erfcc`, fractional error < 1.2·10⁻⁷). Used for
/// the automatic tail share of the spliced size model (spec 02 §3.2.3).
pub fn normal_cdf(x: f64) -> f64 {
    0.5 * erfc(-x / std::f64::consts::SQRT_2)
}

/// Complementary error function, Numerical Recipes `erfcc` (see `normal_cdf`).
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98 + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let ans = t * (-z * z + poly).exp();
    if x >= 0.0 { ans } else { 2.0 - ans }
}

/// Zipf popularity over ranks 0..n: P(rank r) ∝ 1/(r + 1)^s (spec 02 §3.2.2
/// step 5, exponent s = 1 by default). Sampling is an inverse-CDF lookup by
/// binary search in the cumulative weights: one `next_f64`, O(log n).
#[derive(Clone, Debug)]
pub struct Zipf {
    /// `cumulative[r]` = Σ_{i ≤ r} 1/(i + 1)^s (unnormalized).
    cumulative: Vec<f64>,
}

impl Zipf {
    /// Table for `n` ranks and exponent `s`. `n = 0` gives an empty table
    /// whose `sample` returns 0.
    pub fn new(n: usize, exponent: f64) -> Zipf {
        let mut total = 0.0;
        let cumulative = (0..n)
            .map(|r| {
                total += ((r + 1) as f64).powf(-exponent);
                total
            })
            .collect();
        Zipf { cumulative }
    }

    /// Number of ranks.
    pub fn len(&self) -> usize {
        self.cumulative.len()
    }

    /// True for a table with no ranks.
    pub fn is_empty(&self) -> bool {
        self.cumulative.is_empty()
    }

    /// Exact probability of the 0-based `rank` (0 outside the table).
    pub fn probability(&self, rank: usize) -> f64 {
        let (Some(&c), Some(&total)) = (self.cumulative.get(rank), self.cumulative.last()) else {
            return 0.0;
        };
        let below = if rank == 0 { 0.0 } else { self.cumulative[rank - 1] };
        (c - below) / total
    }

    /// A 0-based rank: the first r with cumulative[r] > u · total.
    pub fn sample(&self, rng: &mut Stream) -> usize {
        let u = rng.next_f64();
        let Some(&total) = self.cumulative.last() else {
            return 0;
        };
        let x = u * total;
        // u · total can round up to total; the min keeps the index in range.
        self.cumulative.partition_point(|&c| c <= x).min(self.cumulative.len() - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const N: usize = 200_000;

    fn median(mut v: Vec<f64>) -> f64 {
        v.sort_by(f64::total_cmp);
        let n = v.len();
        if n % 2 == 1 { v[n / 2] } else { 0.5 * (v[n / 2 - 1] + v[n / 2]) }
    }

    #[test]
    fn standard_normal_moments() {
        // Mean 0, variance 1; sd of the sample mean = 1/√N ≈ 0.0022, of the
        // sample variance ≈ √(2/N) ≈ 0.0032. Allow about 5 sd.
        let mut rng = Stream::derive(1, "web.test.normal");
        let z: Vec<f64> = (0..N).map(|_| standard_normal(&mut rng)).collect();
        let mean = z.iter().sum::<f64>() / N as f64;
        let var = z.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / N as f64;
        assert!(mean.abs() < 0.011, "mean {mean}");
        assert!((var - 1.0).abs() < 0.016, "var {var}");
        // P(Z ≤ 1) = Φ(1) = 0.841345; binomial sd √(0.84·0.16/N) ≈ 0.0008.
        let below = z.iter().filter(|&&x| x <= 1.0).count() as f64 / N as f64;
        assert!((below - 0.841_345).abs() < 0.004, "P(Z<=1) {below}");
    }

    #[test]
    fn lognormal_median_is_e_to_mu() {
        // Surge body: median e^9.357 = 11 579.6 bytes. The sample median of Z
        // has sd √(π/2)/√N ≈ 0.0028, so ln(median) − μ has sd ≈ 1.318 · 0.0028
        // ≈ 0.0037; allow 0.02.
        let mut rng = Stream::derive(1, "web.test.lognormal");
        let m = median((0..N).map(|_| lognormal(&mut rng, 9.357, 1.318)).collect());
        assert!((m.ln() - 9.357).abs() < 0.02, "median {m}");
        assert_eq!((m / 1000.0).round(), 12.0); // 11.6 kB → 12 (rounded snapshot)
    }

    #[test]
    fn pareto_median_and_support() {
        // Think time Pareto(1.4, 2 s): median 2 · 2^(1/1.4) = 3.2813 s. Density
        // at the median f = α/(2m) = 0.2133, sd of the sample median
        // 1/(2 f √N) ≈ 0.0052; allow 0.03.
        let mut rng = Stream::derive(1, "web.test.pareto");
        let x: Vec<f64> = (0..N).map(|_| pareto(&mut rng, 1.4, 2.0)).collect();
        assert!(x.iter().all(|&v| v >= 2.0 && v.is_finite()));
        let m = median(x);
        assert!((m - 3.2813).abs() < 0.03, "median {m}");
        // P(X > 4) = (2/4)^1.4 = 0.3789; sd √(0.38·0.62/N) ≈ 0.0011.
        let mut rng = Stream::derive(2, "web.test.pareto");
        let over = (0..N).filter(|_| pareto(&mut rng, 1.4, 2.0) > 4.0).count() as f64 / N as f64;
        assert!((over - 0.3789).abs() < 0.006, "P(X>4) {over}");
    }

    #[test]
    fn pareto_floor_embedded_count_median() {
        // Surge embedded count ⌊X⌋, X ~ Pareto(1.245, 2): median of X is
        // 2 · 2^(1/1.245) = 3.49, so P(⌊X⌋ ≤ 2) = P(X < 3) = 1 − (2/3)^1.245
        // = 0.3965 and P(⌊X⌋ ≤ 3) = 1 − (2/4)^1.245 = 0.5785: median ⌊X⌋ = 3.
        let mut rng = Stream::derive(1, "web.test.pareto_floor");
        let n: Vec<f64> = (0..N).map(|_| pareto(&mut rng, 1.245, 2.0).floor()).collect();
        assert_eq!(median(n.clone()), 3.0);
        let le2 = n.iter().filter(|&&v| v <= 2.0).count() as f64 / N as f64;
        assert!((le2 - 0.3965).abs() < 0.006, "P(n<=2) {le2}");
    }

    #[test]
    fn geometric_mean_two() {
        // Support {1, 2, …}, p = 1/2: mean 2, variance (1 − p)/p² = 2, sd of the
        // sample mean √(2/N) ≈ 0.0032; allow 0.016. P(N = 1) = p = 0.5.
        let mut rng = Stream::derive(1, "web.test.geometric");
        let x: Vec<u64> = (0..N).map(|_| geometric_from_one(&mut rng, 2.0)).collect();
        assert!(x.iter().all(|&v| v >= 1));
        let mean = x.iter().sum::<u64>() as f64 / N as f64;
        assert!((mean - 2.0).abs() < 0.016, "mean {mean}");
        let ones = x.iter().filter(|&&v| v == 1).count() as f64 / N as f64;
        assert!((ones - 0.5).abs() < 0.006, "P(1) {ones}");
        // Degenerate means give the constant 1.
        assert_eq!(geometric_from_one(&mut rng, 1.0), 1);
        assert_eq!(geometric_from_one(&mut rng, 0.5), 1);
        assert_eq!(geometric_from_one(&mut rng, f64::NAN), 1);
    }

    #[test]
    fn zipf_rank_ratio_is_two() {
        // 1240 objects, s = 1: P(rank 1) = 1/H_1240 = 1/7.7005 = 0.12986 and
        // P(rank 1)/P(rank 2) = 2. With 10⁶ draws the count of rank 1 has sd
        // ≈ 336, of rank 2 ≈ 246, so the ratio has sd ≈ 0.009; allow 0.05.
        let z = Zipf::new(1240, 1.0);
        assert!((z.probability(0) - 0.129_862).abs() < 1e-6);
        assert!((z.probability(0) / z.probability(1) - 2.0).abs() < 1e-12);
        let mut rng = Stream::derive(1, "web.test.zipf");
        let mut counts = vec![0u64; 1240];
        for _ in 0..1_000_000 {
            counts[z.sample(&mut rng)] += 1;
        }
        let ratio = counts[0] as f64 / counts[1] as f64;
        assert!((ratio - 2.0).abs() < 0.05, "ratio {ratio}");
        assert!((counts[0] as f64 / 1e6 - 0.129_862).abs() < 0.0017, "P(rank 1) {}", counts[0]);
        assert!(counts[1239] > 0, "the last rank is reachable");
    }

    #[test]
    fn zipf_empty_and_single() {
        let mut rng = Stream::derive(1, "web.test.zipf_small");
        assert_eq!(Zipf::new(0, 1.0).sample(&mut rng), 0);
        assert_eq!(Zipf::new(1, 1.0).sample(&mut rng), 0);
        assert_eq!(Zipf::new(1, 1.0).probability(0), 1.0);
    }

    #[test]
    fn shuffle_is_uniform_over_permutations() {
        // 3 elements: 6 permutations, each 1/6; 60 000 shuffles give 10 000
        // each with sd √(60000 · 1/6 · 5/6) ≈ 91; allow 5 sd.
        let mut rng = Stream::derive(1, "web.test.shuffle");
        let mut counts = std::collections::BTreeMap::new();
        for _ in 0..60_000 {
            let mut v = [0u8, 1, 2];
            shuffle(&mut rng, &mut v);
            *counts.entry(v).or_insert(0u32) += 1;
        }
        assert_eq!(counts.len(), 6);
        for (perm, c) in counts {
            assert!((c as f64 - 10_000.0).abs() < 455.0, "{perm:?}: {c}");
        }
    }

    #[test]
    fn uniform_index_is_unbiased() {
        // n = 7: each value 1/7 of 70 000 draws = 10 000, sd ≈ 93; allow 5 sd.
        let mut rng = Stream::derive(1, "web.test.index");
        let mut counts = [0u32; 7];
        for _ in 0..70_000 {
            counts[uniform_index(&mut rng, 7)] += 1;
        }
        assert!(counts.iter().all(|&c| (c as f64 - 10_000.0).abs() < 465.0), "{counts:?}");
        assert_eq!(uniform_index(&mut rng, 0), 0);
        assert_eq!(uniform_index(&mut rng, 1), 0);
    }

    #[test]
    fn normal_cdf_table_values() {
        // Φ(0) = 0.5, Φ(1.96) = 0.975002, Φ(−1) = 0.158655, and the surge
        // splice point z = (ln 133 000 − 9.357)/1.318 = 1.852128 has
        // 1 − Φ(z) = 0.032004.
        assert!((normal_cdf(0.0) - 0.5).abs() < 1e-7);
        assert!((normal_cdf(1.96) - 0.975_002).abs() < 1e-6);
        assert!((normal_cdf(-1.0) - 0.158_655).abs() < 1e-6);
        assert!((1.0 - normal_cdf(1.852_128) - 0.032_004).abs() < 1e-6);
    }

    #[test]
    fn samplers_are_deterministic() {
        let draw = |seed| {
            let mut rng = Stream::derive(seed, "web.test.det");
            (lognormal(&mut rng, 9.357, 1.318), pareto(&mut rng, 1.1, 133_000.0), geometric_from_one(&mut rng, 2.0))
        };
        assert_eq!(draw(5), draw(5));
        assert_ne!(draw(5), draw(6));
    }
}
