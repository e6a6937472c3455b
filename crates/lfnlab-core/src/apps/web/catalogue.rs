//! The file/object catalogue of the surge-style Web workload (spec 02
//! §3.2.2): files with i.i.d. sizes, grouped into compound pages (a base file
//! and its embedded files) and loners, with a popularity law over objects and
//! the users' think time. Built once per run from one stream; the HTTP
//! clients then read it and draw object choices and think times from their
//! own streams.
//!
//! Layout: one flat list of files in object order plus an offset per object
//! (`object_start`), so an object's files are one slice and nothing is
//! allocated per object.

use std::fmt;

pub use super::config::{
    CatalogueConfig, EmbeddedCount, FILE_BYTES_MAX, Popularity, SizeModel, THINK_TIME_MAX_S, WebModel,
};
use super::dist::{Zipf, pareto, shuffle, uniform_index};
use crate::engine::rng::Stream;
use crate::engine::time::Span;

/// The popularity law after the build.
#[derive(Clone, Debug)]
enum PopularityTable {
    /// Zipf over ranks; `rank_object[r]` is the object with 0-based rank r
    /// (a random permutation of the objects, spec 02 §3.2.2 step 5).
    Zipf { zipf: Zipf, rank_object: Vec<u32> },
    /// Every object equally likely.
    Uniform,
}

/// One run's files and objects (spec 02 §3.2.2).
///
/// File ids follow the classes: base files `0..base`, embedded files
/// `base..base + embedded`, loners after. Object ids: object b < base is the
/// page of base file b, then one object per loner (in file-id order), then
/// one object per embedded file that found no base file with room (only when
/// every base file already holds `max_files_per_object` files; never with
/// the spec models).
#[derive(Clone, Debug)]
pub struct Catalogue {
    /// The configuration the catalogue was built from.
    config: CatalogueConfig,
    /// Files per class: [base, embedded, loner].
    class_files: [u32; 3],
    /// Size in bytes of each file, by file id.
    file_bytes: Vec<u64>,
    /// File ids in object order: object o owns
    /// `object_file_ids[object_start[o]..object_start[o + 1]]`, base file first.
    object_file_ids: Vec<u32>,
    /// `file_bytes` of `object_file_ids`, same layout (what `object_files` returns).
    object_file_bytes: Vec<u64>,
    /// Offsets into the flat lists; `objects + 1` entries, the last is `files`.
    object_start: Vec<u32>,
    /// Embedded files that became objects of their own (see the type doc).
    unplaced_embedded: u32,
    /// The popularity law over object ids.
    popularity: PopularityTable,
}

impl Catalogue {
    /// Builds the catalogue by spec 02 §3.2.2 steps 1–5. Expects a config
    /// that passed `CatalogueConfig::validate`; any other config still
    /// builds a well-formed catalogue.
    ///
    /// Draws from `rng`, in this order:
    /// 1. one size per file, file ids 0..F (classes in the order base,
    ///    embedded, loner; sizes are i.i.d., so the order is immaterial);
    /// 2. the base-file visiting order (shuffle of the base ids);
    /// 3. the embedded pool (shuffle of the embedded ids);
    /// 4. n_b for each visited base file while the pool is not empty
    ///    (a base file visited after the pool ran out draws nothing);
    /// 5. for Zipf popularity, the rank permutation of the object ids.
    ///
    /// Step 3 rules: n_b is capped at `max_files_per_object − 1` and at what
    /// is left in the pool. Files left in the pool after every base file
    /// was visited are dealt one at a time round-robin in the same visiting
    /// order, skipping base files that are full; files that find no base
    /// file with room (every page full) become one-file objects.
    pub fn build(cfg: &CatalogueConfig, rng: &mut Stream) -> Catalogue {
        // Step 1: class sizes.
        let class_files = cfg.class_counts();
        let [n_base, n_embedded, n_loner] = class_files.map(|n| n as usize);
        let n_files = n_base + n_embedded + n_loner;

        // Step 2: i.i.d. sizes, rounded up, at least 1 byte.
        let file_bytes: Vec<u64> = (0..n_files).map(|_| cfg.size.sample_bytes(rng)).collect();

        // Step 3: random visiting order, shuffled pool, draws without replacement.
        let mut order: Vec<u32> = (0..n_base as u32).collect();
        shuffle(rng, &mut order);
        let mut pool: Vec<u32> = (n_base as u32..(n_base + n_embedded) as u32).collect();
        shuffle(rng, &mut pool);
        let cap = cfg.max_files_per_object.saturating_sub(1);
        // owner[i] = base file that takes pool[i]; the pool is consumed front to back.
        let mut owner: Vec<u32> = Vec::with_capacity(n_embedded);
        let mut taken = vec![0u32; n_base];
        for &b in &order {
            let left = pool.len() - owner.len();
            if left == 0 {
                break;
            }
            let n_b = cfg.embedded.sample(rng).min(cap as u64).min(left as u64) as u32;
            owner.extend(std::iter::repeat_n(b, n_b as usize));
            taken[b as usize] = n_b;
        }
        // Leftovers: round-robin in visiting order, respecting the cap.
        'deal: while owner.len() < pool.len() {
            let mut dealt = false;
            for &b in &order {
                if owner.len() == pool.len() {
                    break 'deal;
                }
                if taken[b as usize] < cap {
                    owner.push(b);
                    taken[b as usize] += 1;
                    dealt = true;
                }
            }
            if !dealt {
                break; // every page is full
            }
        }
        let placed = owner.len();
        let unplaced = &pool[placed..];

        // Step 4: objects = pages, then loners, then unplaced embedded files.
        let n_objects = n_base + n_loner + unplaced.len();
        let mut object_start: Vec<u32> = Vec::with_capacity(n_objects + 1);
        let mut at = 0u32;
        object_start.push(0);
        for &t in &taken {
            at += 1 + t;
            object_start.push(at);
        }
        for _ in 0..n_loner + unplaced.len() {
            at += 1;
            object_start.push(at);
        }
        debug_assert_eq!(at as usize, n_files);

        let mut object_file_ids = vec![0u32; n_files];
        let mut cursor: Vec<u32> = object_start[..n_base].to_vec();
        for b in 0..n_base {
            object_file_ids[cursor[b] as usize] = b as u32;
            cursor[b] += 1;
        }
        for (&file, &b) in pool.iter().zip(&owner) {
            object_file_ids[cursor[b as usize] as usize] = file;
            cursor[b as usize] += 1;
        }
        let loner_ids = (n_base + n_embedded) as u32..n_files as u32;
        let singles = loner_ids.chain(unplaced.iter().copied());
        for (slot, file) in object_file_ids[object_start[n_base] as usize..].iter_mut().zip(singles) {
            *slot = file;
        }
        let object_file_bytes = object_file_ids.iter().map(|&f| file_bytes[f as usize]).collect();

        // Step 5: popularity.
        let popularity = match cfg.popularity {
            Popularity::Zipf { exponent } => {
                let mut rank_object: Vec<u32> = (0..n_objects as u32).collect();
                shuffle(rng, &mut rank_object);
                PopularityTable::Zipf { zipf: Zipf::new(n_objects, exponent), rank_object }
            }
            Popularity::Uniform => PopularityTable::Uniform,
        };

        Catalogue {
            config: *cfg,
            class_files,
            file_bytes,
            object_file_ids,
            object_file_bytes,
            object_start,
            unplaced_embedded: unplaced.len() as u32,
            popularity,
        }
    }

    /// The configuration the catalogue was built from.
    pub fn config(&self) -> &CatalogueConfig {
        &self.config
    }

    /// Number of files.
    pub fn files(&self) -> usize {
        self.file_bytes.len()
    }

    /// Size of file `file` (by id) in bytes.
    pub fn file_bytes(&self, file: usize) -> u64 {
        self.file_bytes[file]
    }

    /// Number of objects (1240 for the spec models).
    pub fn objects(&self) -> usize {
        self.object_start.len() - 1
    }

    /// File sizes of `object` in bytes, base file first (a loner has one file).
    pub fn object_files(&self, object: usize) -> &[u64] {
        &self.object_file_bytes[self.range(object)]
    }

    /// File ids of `object`, in the order of `object_files`.
    pub fn object_file_ids(&self, object: usize) -> &[u32] {
        &self.object_file_ids[self.range(object)]
    }

    /// Total bytes of `object` (file bodies only, no HTTP headers).
    pub fn object_bytes(&self, object: usize) -> u64 {
        self.object_files(object).iter().sum()
    }

    fn range(&self, object: usize) -> std::ops::Range<usize> {
        self.object_start[object] as usize..self.object_start[object + 1] as usize
    }

    /// An object id by the popularity law: Zipf draws a rank (one
    /// `next_f64`) and maps it through the rank permutation; uniform draws
    /// an index without bias (one `next_u64`).
    pub fn pick_object(&self, rng: &mut Stream) -> usize {
        match &self.popularity {
            PopularityTable::Zipf { zipf, rank_object } => {
                rank_object.get(zipf.sample(rng)).map_or(0, |&o| o as usize)
            }
            PopularityTable::Uniform => uniform_index(rng, self.objects()),
        }
    }

    /// The 0-based Zipf rank of `object` (None for uniform popularity).
    /// Linear search: for reports and tests, not per request.
    pub fn object_rank(&self, object: usize) -> Option<usize> {
        match &self.popularity {
            PopularityTable::Zipf { rank_object, .. } => rank_object.iter().position(|&o| o as usize == object),
            PopularityTable::Uniform => None,
        }
    }

    /// One think (OFF) time: Pareto(think_alpha, think_k_s) seconds, capped
    /// at `THINK_TIME_MAX_S` (spec 02 §3.2.3). One `next_f64`.
    pub fn think_time(&self, rng: &mut Stream) -> Span {
        let s = pareto(rng, self.config.think_alpha, self.config.think_k_s);
        Span::from_secs_f64(if s.is_nan() { self.config.think_k_s } else { s.min(THINK_TIME_MAX_S) })
    }

    /// Realized sizes and counts, for the run report (spec 02 §3.2.3: "the
    /// harness must print the realized mean and median file size and object
    /// size of every run").
    pub fn stats(&self) -> CatalogueStats {
        let objects: Vec<u64> = (0..self.objects()).map(|o| self.object_bytes(o)).collect();
        let [base, embedded, loners] = self.class_files;
        CatalogueStats {
            files: self.files() as u32,
            objects: self.objects() as u32,
            base,
            embedded,
            loners,
            unplaced_embedded: self.unplaced_embedded,
            max_object_files: (0..self.objects()).map(|o| self.range(o).len() as u32).max().unwrap_or(0),
            mean_file_bytes: mean(&self.file_bytes),
            median_file_bytes: median(self.file_bytes.clone()),
            mean_object_bytes: mean(&objects),
            median_object_bytes: median(objects),
        }
    }
}

/// Arithmetic mean (0 for an empty list).
fn mean(v: &[u64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.iter().map(|&x| x as u128).sum::<u128>() as f64 / v.len() as f64
}

/// Median; for an even count the midpoint of the two middle values
/// (0 for an empty list).
fn median(mut v: Vec<u64>) -> f64 {
    v.sort_unstable();
    let n = v.len();
    match n {
        0 => 0.0,
        _ if n % 2 == 1 => v[n / 2] as f64,
        _ => (v[n / 2 - 1] as f64 + v[n / 2] as f64) / 2.0,
    }
}

/// Realized catalogue statistics (`Catalogue::stats`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CatalogueStats {
    /// Number of files.
    pub files: u32,
    /// Number of objects.
    pub objects: u32,
    /// Base files.
    pub base: u32,
    /// Embedded files.
    pub embedded: u32,
    /// Loner files.
    pub loners: u32,
    /// Embedded files that became one-file objects because every page was
    /// full (0 for the spec models).
    pub unplaced_embedded: u32,
    /// Files in the largest object.
    pub max_object_files: u32,
    /// Mean file size in bytes.
    pub mean_file_bytes: f64,
    /// Median file size in bytes (midpoint for an even count).
    pub median_file_bytes: f64,
    /// Mean object size in bytes (sum of its files).
    pub mean_object_bytes: f64,
    /// Median object size in bytes.
    pub median_object_bytes: f64,
}

impl fmt::Display for CatalogueStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} files (base {}, embedded {}, loner {}), {} objects; file size mean {:.0} B, median {:.0} B; object size mean {:.0} B, median {:.0} B",
            self.files,
            self.base,
            self.embedded,
            self.loners,
            self.objects,
            self.mean_file_bytes,
            self.median_file_bytes,
            self.mean_object_bytes,
            self.median_object_bytes
        )
    }
}
