//! Parameters of the surge-style Web workload (spec 02 §3.2.3 table): the two
//! named models, the distribution families they use and the per-draw samplers
//! of those families. The scenario layer calls `CatalogueConfig::validate`;
//! the samplers stay finite for any input that passes it.

use std::fmt;
use std::str::FromStr;

use super::dist::{geometric_from_one, lognormal, normal_cdf, pareto};
use crate::engine::rng::Stream;

/// Largest file size a draw can produce: 2⁴⁰ bytes (1 TiB). The Pareto tail
/// with α = 1.1 reaches k · 2^(53/1.1) ≈ 4·10¹⁹ bytes for the smallest
/// uniform, which would overflow a `u64`; P(X > 2⁴⁰) = (133 000/2⁴⁰)^1.1
/// ≈ 2·10⁻⁸ per file, so the cap leaves the distribution intact in practice.
pub const FILE_BYTES_MAX: u64 = 1 << 40;

/// Largest think time a draw can produce, in seconds (10⁶ s ≈ 11.6 days),
/// so that `now + think` cannot overflow the picosecond clock (u64 holds
/// about 213 days). P(X > 10⁶ s) = (2/10⁶)^1.4 ≈ 10⁻⁸ per draw.
pub const THINK_TIME_MAX_S: f64 = 1e6;

/// Resampling bound of the truncated lognormal body (`tail_share = p`): after
/// this many draws above k the draw is k itself. With the surge parameters a
/// draw exceeds k with probability 0.032, so the bound is never reached.
pub const TRUNCATED_BODY_TRIES: u32 = 1000;

/// The two named workload models of spec 02 §3.2.3.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WebModel {
    /// Barford & Crovella 1998 SURGE table: Zipf popularity, spliced
    /// lognormal/Pareto sizes, ⌊Pareto(1.245, 2)⌋ embedded files.
    SurgeDefault,
    /// Uniform popularity, lognormal(11.92, 1.0) sizes, geometric embedded
    /// count with mean 2.
    LargeFiles,
}

impl WebModel {
    /// Every accepted name, in declaration order.
    pub const NAMES: &'static [&'static str] = &["surge_default", "large_files"];

    /// The configuration name of the model.
    pub fn as_str(self) -> &'static str {
        match self {
            WebModel::SurgeDefault => "surge_default",
            WebModel::LargeFiles => "large_files",
        }
    }
}

impl FromStr for WebModel {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "surge_default" => Ok(WebModel::SurgeDefault),
            "large_files" => Ok(WebModel::LargeFiles),
            _ => Err("one of \"surge_default\", \"large_files\"".to_string()),
        }
    }
}

impl fmt::Display for WebModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How users choose objects (spec 02 §3.2.2 step 5).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Popularity {
    /// Object ranks are a random permutation; P(rank r) ∝ 1/r^exponent.
    Zipf {
        /// Zipf exponent s (1 in both spec models that use Zipf).
        exponent: f64,
    },
    /// Every object equally likely.
    Uniform,
}

/// File-size distribution (spec 02 §3.2.3), in bytes before rounding up.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SizeModel {
    /// Lognormal body spliced with a Pareto tail at `tail_k_bytes`.
    Spliced {
        /// Mean of ln(bytes) of the body.
        mu: f64,
        /// Standard deviation of ln(bytes) of the body.
        sigma: f64,
        /// Pareto shape of the tail.
        tail_alpha: f64,
        /// Splice point and Pareto scale k, in bytes (133 000, spec 02 §6 point 19).
        tail_k_bytes: f64,
        /// `None` (`auto`): draw from the body and replace a draw above k by
        /// an independent tail draw, so the tail share is the body's
        /// exceedance P(X > k). `Some(p)`: tail with probability p, else the
        /// body truncated at k.
        tail_share: Option<f64>,
    },
    /// Plain lognormal.
    Lognormal {
        /// Mean of ln(bytes).
        mu: f64,
        /// Standard deviation of ln(bytes).
        sigma: f64,
    },
}

impl SizeModel {
    /// One file size in bytes: the continuous draw rounded up, at least 1,
    /// at most `FILE_BYTES_MAX` (spec 02 §3.2.2 step 2).
    ///
    /// Draws: `Lognormal` and `Spliced/auto` below k take two `next_f64`
    /// (plus one for the tail); `Spliced/Some(p)` takes one for the coin, then
    /// one (tail) or two per body attempt. The truncated body resamples until
    /// a draw is ≤ k (at most `TRUNCATED_BODY_TRIES` attempts, then k).
    pub fn sample_bytes(&self, rng: &mut Stream) -> u64 {
        let x = match *self {
            SizeModel::Lognormal { mu, sigma } => lognormal(rng, mu, sigma),
            SizeModel::Spliced { mu, sigma, tail_alpha, tail_k_bytes: k, tail_share: None } => {
                // spec 02 §3.2.3 splice rule.
                let body = lognormal(rng, mu, sigma);
                if body > k { pareto(rng, tail_alpha, k) } else { body }
            }
            SizeModel::Spliced { mu, sigma, tail_alpha, tail_k_bytes: k, tail_share: Some(p) } => {
                if rng.bernoulli(p) {
                    pareto(rng, tail_alpha, k)
                } else {
                    truncated_lognormal(rng, mu, sigma, k)
                }
            }
        };
        bytes_from_draw(x)
    }

    /// Probability that a size comes from the Pareto tail: for `auto` the
    /// lognormal exceedance 1 − Φ((ln k − μ)/σ) (0.0320 for the surge
    /// parameters), for `Some(p)` p, for a plain lognormal 0.
    pub fn tail_share(&self) -> f64 {
        match *self {
            SizeModel::Spliced { tail_share: Some(p), .. } => p,
            SizeModel::Spliced { mu, sigma, tail_k_bytes, tail_share: None, .. } => {
                1.0 - normal_cdf((tail_k_bytes.ln() - mu) / sigma)
            }
            SizeModel::Lognormal { .. } => 0.0,
        }
    }
}

/// Lognormal body truncated at k by rejection (exact conditional law).
fn truncated_lognormal(rng: &mut Stream, mu: f64, sigma: f64, k: f64) -> f64 {
    for _ in 0..TRUNCATED_BODY_TRIES {
        let x = lognormal(rng, mu, sigma);
        if x <= k {
            return x;
        }
    }
    k
}

/// Whole bytes from a continuous draw: rounded up, clamped to
/// [1, FILE_BYTES_MAX]; NaN gives 1.
fn bytes_from_draw(x: f64) -> u64 {
    if x.is_nan() || x <= 1.0 {
        1
    } else if x >= FILE_BYTES_MAX as f64 {
        FILE_BYTES_MAX
    } else {
        x.ceil() as u64
    }
}

/// Number of embedded files a base file asks for (spec 02 §3.2.3).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum EmbeddedCount {
    /// n = ⌊X⌋, X ~ Pareto(alpha, k).
    ParetoFloor {
        /// Pareto shape.
        alpha: f64,
        /// Pareto scale (smallest X).
        k: f64,
    },
    /// Geometric on {1, 2, …} with the given mean 1/p (spec 02 §6 point 21).
    Geometric {
        /// Mean 1/p, at least 1.
        mean: f64,
    },
}

impl EmbeddedCount {
    /// `embedded_count = surge1998`: ⌊Pareto(2.43, 1)⌋, the SURGE table's
    /// embedded references (spec 02 §3.2.3, option).
    pub const SURGE1998: EmbeddedCount = EmbeddedCount::ParetoFloor { alpha: 2.43, k: 1.0 };

    /// One uncapped count; one `next_f64`. Saturates at `u64::MAX`.
    pub fn sample(&self, rng: &mut Stream) -> u64 {
        match *self {
            // `as` saturates and maps NaN to 0.
            EmbeddedCount::ParetoFloor { alpha, k } => pareto(rng, alpha, k).floor() as u64,
            EmbeddedCount::Geometric { mean } => geometric_from_one(rng, mean),
        }
    }
}

/// Everything that defines a file/object catalogue and the users' think
/// time (spec 02 §3.2.2–3.2.3).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CatalogueConfig {
    /// Number of files F (2000).
    pub files: u32,
    /// Share of base files (0.30).
    pub base_share: f64,
    /// Share of embedded files (0.38).
    pub embedded_share: f64,
    /// Share of loner files (0.32).
    pub loner_share: f64,
    /// Object popularity.
    pub popularity: Popularity,
    /// File-size distribution.
    pub size: SizeModel,
    /// Embedded-file count per base file.
    pub embedded: EmbeddedCount,
    /// Most files in one object, base file included (150).
    pub max_files_per_object: u32,
    /// Pareto shape of the think (OFF) time (1.4).
    pub think_alpha: f64,
    /// Pareto scale of the think time, in seconds (2, spec 02 §6 point 22).
    pub think_k_s: f64,
}

impl CatalogueConfig {
    /// The "Surge default" and "Large files" columns of the spec 02 §3.2.3 table.
    pub fn for_model(m: WebModel) -> CatalogueConfig {
        let common = CatalogueConfig {
            files: 2000,
            base_share: 0.30,
            embedded_share: 0.38,
            loner_share: 0.32,
            popularity: Popularity::Uniform,
            size: SizeModel::Lognormal { mu: 11.92, sigma: 1.0 },
            embedded: EmbeddedCount::Geometric { mean: 2.0 },
            max_files_per_object: 150,
            think_alpha: 1.4,
            think_k_s: 2.0,
        };
        match m {
            WebModel::SurgeDefault => CatalogueConfig {
                popularity: Popularity::Zipf { exponent: 1.0 },
                size: SizeModel::Spliced {
                    mu: 9.357,
                    sigma: 1.318,
                    tail_alpha: 1.1,
                    tail_k_bytes: 133_000.0,
                    tail_share: None,
                },
                embedded: EmbeddedCount::ParetoFloor { alpha: 1.245, k: 2.0 },
                ..common
            },
            WebModel::LargeFiles => common,
        }
    }

    /// Checks every parameter; the message names the offending key.
    pub fn validate(&self) -> Result<(), String> {
        let finite_pos = |v: f64| v.is_finite() && v > 0.0;
        let finite_nonneg = |v: f64| v.is_finite() && v >= 0.0;
        if self.files == 0 {
            return Err("files: must be at least 1".into());
        }
        for (key, v) in [("base_share", self.base_share), ("embedded_share", self.embedded_share), ("loner_share", self.loner_share)] {
            if !(finite_nonneg(v) && v <= 1.0) {
                return Err(format!("{key}: must be in [0, 1], got {v}"));
            }
        }
        let sum = self.base_share + self.embedded_share + self.loner_share;
        if (sum - 1.0).abs() > 1e-6 {
            return Err(format!("base_share + embedded_share + loner_share: must sum to 1, got {sum}"));
        }
        if let Popularity::Zipf { exponent } = self.popularity
            && !finite_nonneg(exponent)
        {
            return Err(format!("popularity.exponent: must be finite and >= 0, got {exponent}"));
        }
        match self.size {
            SizeModel::Spliced { mu, sigma, tail_alpha, tail_k_bytes, tail_share } => {
                if !mu.is_finite() || !finite_nonneg(sigma) {
                    return Err(format!("size: mu must be finite and sigma >= 0, got mu {mu}, sigma {sigma}"));
                }
                if !(finite_pos(tail_alpha) && tail_k_bytes.is_finite() && tail_k_bytes >= 1.0) {
                    return Err(format!("size: tail_alpha must be > 0 and tail_k_bytes >= 1, got {tail_alpha}, {tail_k_bytes}"));
                }
                if let Some(p) = tail_share
                    && !(finite_nonneg(p) && p <= 1.0)
                {
                    return Err(format!("size.tail_share: must be in [0, 1] or auto, got {p}"));
                }
            }
            SizeModel::Lognormal { mu, sigma } => {
                if !mu.is_finite() || !finite_nonneg(sigma) {
                    return Err(format!("size: mu must be finite and sigma >= 0, got mu {mu}, sigma {sigma}"));
                }
            }
        }
        match self.embedded {
            EmbeddedCount::ParetoFloor { alpha, k } => {
                if !finite_pos(alpha) || !finite_pos(k) {
                    return Err(format!("embedded_count: Pareto alpha and k must be > 0, got {alpha}, {k}"));
                }
            }
            EmbeddedCount::Geometric { mean } => {
                if !(mean.is_finite() && mean >= 1.0) {
                    return Err(format!("embedded_count: geometric mean must be >= 1, got {mean}"));
                }
            }
        }
        if self.max_files_per_object == 0 {
            return Err("max_files_per_object: must be at least 1".into());
        }
        if !finite_pos(self.think_alpha) || !finite_pos(self.think_k_s) {
            return Err(format!("think: alpha and k_s must be > 0, got {}, {}", self.think_alpha, self.think_k_s));
        }
        Ok(())
    }

    /// Files per class [base, embedded, loner] from the shares, by the
    /// largest-remainder rule: quota_i = files · s_i / Σs with every share
    /// read to 9 decimals (s_i · 10⁹ rounded to an integer, so the arithmetic
    /// is exact); each class gets ⌊quota_i⌋, and the units still missing go
    /// one each to the classes with the largest remainders, ties to the
    /// earlier class (base, then embedded, then loner). The counts sum to
    /// `files`. 2000 · (0.30, 0.38, 0.32) = (600, 760, 640) exactly;
    /// e.g. 1000 · (0.30, 0.38, 0.32) = (300, 380, 320) and
    /// 10 · (0.30, 0.38, 0.32) = (3, 4, 3) (remainders 0, 0.8, 0.2).
    pub fn class_counts(&self) -> [u32; 3] {
        let shares = [self.base_share, self.embedded_share, self.loner_share];
        let w = shares.map(|s| if s.is_finite() && s > 0.0 { (s * 1e9).round() as u128 } else { 0 });
        let total: u128 = w.iter().sum();
        let files = self.files as u128;
        if total == 0 {
            // No usable share (rejected by `validate`): everything is a loner.
            return [0, 0, self.files];
        }
        let mut counts = w.map(|wi| (files * wi / total) as u32);
        let mut rem = w.map(|wi| files * wi % total);
        let assigned: u32 = counts.iter().sum();
        for _ in assigned..self.files {
            // First index of the largest remainder: ties go to the earlier class.
            let mut best = 0;
            for i in 1..3 {
                if rem[i] > rem[best] {
                    best = i;
                }
            }
            counts[best] += 1;
            rem[best] = 0;
        }
        counts
    }
}
