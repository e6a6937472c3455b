//! Catalogue tests (spec 02 §3.2.2–3.2.3). The distribution samplers are
//! tested in `dist.rs`.

use super::catalogue::{Catalogue, FILE_BYTES_MAX, THINK_TIME_MAX_S};
use super::config::{CatalogueConfig, EmbeddedCount, Popularity, SizeModel, WebModel};
use super::dist::shuffle;
use crate::engine::rng::Stream;

const MODELS: [WebModel; 2] = [WebModel::SurgeDefault, WebModel::LargeFiles];

fn build(model: WebModel, seed: u64) -> Catalogue {
    Catalogue::build(&CatalogueConfig::for_model(model), &mut Stream::derive(seed, "web.catalogue"))
}

/// Checks the structural invariants of any catalogue and returns the number
/// of embedded files per page.
fn check_structure(c: &Catalogue) -> Vec<usize> {
    let cfg = c.config();
    let [n_base, n_embedded, n_loner] = cfg.class_counts().map(|n| n as usize);
    let mut seen = vec![0u32; c.files()];
    let mut per_page = Vec::new();
    for o in 0..c.objects() {
        let ids = c.object_file_ids(o);
        let bytes = c.object_files(o);
        assert!(!ids.is_empty() && ids.len() <= cfg.max_files_per_object as usize, "object {o}: {} files", ids.len());
        assert_eq!(ids.len(), bytes.len());
        for (&f, &b) in ids.iter().zip(bytes) {
            seen[f as usize] += 1;
            assert_eq!(c.file_bytes(f as usize), b);
            assert!((1..=FILE_BYTES_MAX).contains(&b));
        }
        if o < n_base {
            // A page: its base file first, then embedded files only.
            assert_eq!(ids[0] as usize, o);
            assert!(ids[1..].iter().all(|&f| (n_base..n_base + n_embedded).contains(&(f as usize))));
            per_page.push(ids.len() - 1);
        } else if o < n_base + n_loner {
            assert_eq!(ids, &[(n_base + n_embedded + o - n_base) as u32]);
        } else {
            // Unplaced embedded file as its own object.
            assert_eq!(ids.len(), 1);
            assert!((n_base..n_base + n_embedded).contains(&(ids[0] as usize)));
        }
    }
    // Every file in exactly one object, exactly once.
    assert!(seen.iter().all(|&k| k == 1), "a file is missing or repeated");
    per_page
}

#[test]
fn class_counts_by_largest_remainder() {
    let mut cfg = CatalogueConfig::for_model(WebModel::SurgeDefault);
    // 2000 · (0.30, 0.38, 0.32) = (600, 760, 640) exactly.
    assert_eq!(cfg.class_counts(), [600, 760, 640]);
    // 10 · (…) = (3, 3.8, 3.2): floors (3, 3, 3), the missing unit to the
    // largest remainder 0.8 → (3, 4, 3).
    cfg.files = 10;
    assert_eq!(cfg.class_counts(), [3, 4, 3]);
    // 1 · (…) = (0.3, 0.38, 0.32): the single file goes to embedded.
    cfg.files = 1;
    assert_eq!(cfg.class_counts(), [0, 1, 0]);
    // Equal thirds are read as 333 333 333 ppb each: 3 files give quotas of
    // exactly 1 → (1, 1, 1); 2 files give quotas 2/3 with equal remainders,
    // so the two units go to base, then embedded → (1, 1, 0).
    cfg.base_share = 1.0 / 3.0;
    cfg.embedded_share = 1.0 / 3.0;
    cfg.loner_share = 1.0 / 3.0;
    cfg.files = 3;
    assert_eq!(cfg.class_counts(), [1, 1, 1]);
    cfg.files = 2;
    assert_eq!(cfg.class_counts(), [1, 1, 0]);
    // Every total sums back to `files`.
    let cfg = CatalogueConfig::for_model(WebModel::LargeFiles);
    for files in 1..500 {
        let c = CatalogueConfig { files, ..cfg }.class_counts();
        assert_eq!(c.iter().sum::<u32>(), files, "files {files}");
    }
}

#[test]
fn spec_models_have_exact_classes_and_1240_objects() {
    for model in MODELS {
        for seed in 1..=5 {
            let c = build(model, seed);
            let s = c.stats();
            assert_eq!((s.files, s.base, s.embedded, s.loners), (2000, 600, 760, 640), "{model} seed {seed}");
            assert_eq!(c.objects(), 1240);
            assert_eq!(s.unplaced_embedded, 0);
            let per_page = check_structure(&c);
            assert_eq!(per_page.iter().sum::<usize>(), 760);
        }
    }
}

#[test]
fn pool_runs_out_and_later_pages_get_nothing() {
    // Surge: n_b = ⌊Pareto(1.245, 2)⌋ ≥ 2 with mean ≈ 10, so the 760-file
    // pool lasts well under 600 base files; large files: geometric mean 2
    // asks ≈ 1200 > 760. Both leave pages without embedded files, and no
    // page of the surge model has exactly one embedded file unless it was
    // the one that emptied the pool.
    for model in MODELS {
        let per_page = check_structure(&build(model, 1));
        let empty = per_page.iter().filter(|&&n| n == 0).count();
        assert!(empty > 100, "{model}: {empty} pages without embedded files");
    }
    let per_page = check_structure(&build(WebModel::SurgeDefault, 1));
    assert!(per_page.iter().filter(|&&n| n == 1).count() <= 1);
}

#[test]
fn no_object_above_150_files() {
    // Geometric mean 10⁹: a draw stays below the cap of 149 embedded files
    // with probability ≈ 1.5·10⁻⁷. 20 base files · 149 = 2980 ≥ 1960 embedded, so the
    // pool empties after ⌈1960/149⌉ = 14 full pages (13 · 149 = 1937, the
    // 14th takes the last 23).
    let cfg = CatalogueConfig {
        base_share: 0.01,
        embedded_share: 0.98,
        loner_share: 0.01,
        embedded: EmbeddedCount::Geometric { mean: 1e9 },
        ..CatalogueConfig::for_model(WebModel::LargeFiles)
    };
    assert_eq!(cfg.validate(), Ok(()));
    let c = Catalogue::build(&cfg, &mut Stream::derive(1, "web.catalogue"));
    let per_page = check_structure(&c);
    assert_eq!(per_page.len(), 20);
    let mut sorted = per_page.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, [vec![0; 6], vec![23], vec![149; 13]].concat());
    assert_eq!(c.stats().max_object_files, 150);
    for model in MODELS {
        for seed in 1..=20 {
            assert!(build(model, seed).stats().max_object_files <= 150);
        }
    }
}

#[test]
fn full_pages_leave_embedded_files_as_own_objects() {
    // 2000 · (0.005, 0.99, 0.005) = (10, 1980, 10): 10 pages hold at most
    // 10 · 149 = 1490 embedded files; the other 490 become one-file objects,
    // so objects = 10 + 10 + 490 = 510.
    let cfg = CatalogueConfig {
        base_share: 0.005,
        embedded_share: 0.99,
        loner_share: 0.005,
        ..CatalogueConfig::for_model(WebModel::SurgeDefault)
    };
    let c = Catalogue::build(&cfg, &mut Stream::derive(1, "web.catalogue"));
    let per_page = check_structure(&c);
    assert_eq!(per_page, vec![149; 10]);
    let s = c.stats();
    assert_eq!((s.objects, s.unplaced_embedded, s.max_object_files), (510, 490, 150));
}

#[test]
fn leftovers_dealt_round_robin_in_visiting_order() {
    // Geometric mean 1 ⇒ n_b = 1 for every base file: 600 files taken, 160
    // left, dealt one each to the first 160 base files of the visiting order.
    let cfg = CatalogueConfig {
        embedded: EmbeddedCount::Geometric { mean: 1.0 },
        ..CatalogueConfig::for_model(WebModel::SurgeDefault)
    };
    let c = Catalogue::build(&cfg, &mut Stream::derive(1, "web.catalogue"));
    let per_page = check_structure(&c);
    // Replay draws 1–2 of `Catalogue::build` to get the visiting order.
    let mut rng = Stream::derive(1, "web.catalogue");
    for _ in 0..2000 {
        cfg.size.sample_bytes(&mut rng);
    }
    let mut order: Vec<u32> = (0..600).collect();
    shuffle(&mut rng, &mut order);
    for (pos, &b) in order.iter().enumerate() {
        assert_eq!(per_page[b as usize], if pos < 160 { 2 } else { 1 }, "visit {pos}, base {b}");
    }
}

#[test]
fn same_seed_same_catalogue_other_seed_differs() {
    for model in MODELS {
        let (a, b, c) = (build(model, 7), build(model, 7), build(model, 8));
        let files = |x: &Catalogue| (0..x.objects()).flat_map(|o| x.object_files(o).to_vec()).collect::<Vec<u64>>();
        let ids = |x: &Catalogue| (0..x.objects()).flat_map(|o| x.object_file_ids(o).to_vec()).collect::<Vec<u32>>();
        let picks = |x: &Catalogue| {
            let mut rng = Stream::derive(3, "web.user[0]");
            (0..100).map(|_| (x.pick_object(&mut rng), x.think_time(&mut rng).ps())).collect::<Vec<_>>()
        };
        assert_eq!(files(&a), files(&b));
        assert_eq!(ids(&a), ids(&b));
        assert_eq!(picks(&a), picks(&b));
        assert_eq!(a.stats(), b.stats());
        assert_ne!(files(&a), files(&c));
        assert_ne!(ids(&a), ids(&c));
        if model == WebModel::SurgeDefault {
            // Zipf: the rank permutation differs, so the same user draws
            // other objects.
            assert_ne!(picks(&a), picks(&c));
        }
    }
}

#[test]
fn stats_match_the_arrays() {
    for model in MODELS {
        let c = build(model, 1);
        let s = c.stats();
        let mut files: Vec<u64> = (0..c.files()).map(|f| c.file_bytes(f)).collect();
        let mut objects: Vec<u64> = (0..c.objects()).map(|o| c.object_files(o).iter().sum()).collect();
        assert_eq!(s.mean_file_bytes, files.iter().sum::<u64>() as f64 / 2000.0);
        assert_eq!(s.mean_object_bytes, objects.iter().sum::<u64>() as f64 / 1240.0);
        // Total bytes are the same whether counted by file or by object.
        assert_eq!(files.iter().sum::<u64>(), objects.iter().sum::<u64>());
        files.sort_unstable();
        objects.sort_unstable();
        // Even counts: midpoint of the two middle values.
        assert_eq!(s.median_file_bytes, (files[999] + files[1000]) as f64 / 2.0);
        assert_eq!(s.median_object_bytes, (objects[619] + objects[620]) as f64 / 2.0);
        assert_eq!(s.max_object_files as usize, (0..c.objects()).map(|o| c.object_files(o).len()).max().unwrap_or(0));
    }
}

/// Rounded realized statistics: mean and median file size, mean and median
/// object size (bytes), files in the largest object.
fn rounded(c: &Catalogue) -> [u64; 5] {
    let s = c.stats();
    [s.mean_file_bytes, s.median_file_bytes, s.mean_object_bytes, s.median_object_bytes, s.max_object_files as f64]
        .map(|v| v.round() as u64)
}

#[test]
fn seed_1_realized_stats_snapshot() {
    // Stream `web.catalogue` under master seed 1. For orientation: the surge
    // body median is e^9.357 = 11 580 B, the large-files median
    // e^11.92 = 150 545 B; spec 02 §3.2.3 requires these realized values to
    // be printed with every run. The surge model's heavy-tailed n_b fills
    // one page to the 150-file cap under this seed.
    let surge = build(WebModel::SurgeDefault, 1);
    let large = build(WebModel::LargeFiles, 1);
    println!("surge_default: {}", surge.stats());
    println!("large_files: {}", large.stats());
    assert_eq!(rounded(&surge), [50_340, 11_614, 81_193, 12_844, 150]);
    assert_eq!(rounded(&large), [248_300, 147_097, 400_484, 215_220, 10]);
}

#[test]
fn auto_tail_share_is_the_lognormal_exceedance() {
    // 1 − Φ((ln 133 000 − 9.357)/1.318) = 1 − Φ(1.852128) = 0.032004.
    let size = CatalogueConfig::for_model(WebModel::SurgeDefault).size;
    assert!((size.tail_share() - 0.032_004).abs() < 1e-6, "{}", size.tail_share());
    // Body draws ≤ k round up to ≤ 133 000; tail draws are > k, so the share
    // of sizes above 133 000 estimates the tail share. n = 10⁶: sd
    // √(0.032 · 0.968/10⁶) ≈ 0.000176; allow 5 sd.
    let mut rng = Stream::derive(1, "web.test.tail");
    let n = 1_000_000;
    let tail = (0..n).filter(|_| size.sample_bytes(&mut rng) > 133_000).count() as f64 / n as f64;
    assert!((tail - 0.032_004).abs() < 0.000_9, "tail share {tail}");
}

#[test]
fn fixed_tail_share_uses_truncated_body() {
    // tail_share = 0.25: a quarter of the sizes above k, the rest from the
    // body truncated at k (so ≤ 133 000 after rounding up). n = 200 000:
    // sd √(0.25 · 0.75/n) ≈ 0.00097; allow 5 sd.
    let size = SizeModel::Spliced { mu: 9.357, sigma: 1.318, tail_alpha: 1.1, tail_k_bytes: 133_000.0, tail_share: Some(0.25) };
    assert_eq!(size.tail_share(), 0.25);
    let mut rng = Stream::derive(1, "web.test.tail_fixed");
    let n = 200_000;
    let x: Vec<u64> = (0..n).map(|_| size.sample_bytes(&mut rng)).collect();
    let tail = x.iter().filter(|&&v| v > 133_000).count() as f64 / n as f64;
    assert!((tail - 0.25).abs() < 0.005, "tail share {tail}");
    // Tail median k · 2^(1/1.1) = 133 000 · 1.8779 = 249 763 B; the sample
    // median of 50 000 tail draws has sd ≈ k·2^(1/α)/(α√n) ≈ 1016 B.
    let mut t: Vec<u64> = x.into_iter().filter(|&v| v > 133_000).collect();
    t.sort_unstable();
    let m = t[t.len() / 2] as f64;
    assert!((m - 249_763.0).abs() < 5_100.0, "tail median {m}");
}

#[test]
fn sizes_are_whole_bytes_within_the_cap() {
    // e^60 bytes ≫ 2^40: every draw hits the cap; e^−20 bytes < 1: every
    // draw is 1 byte.
    let mut rng = Stream::derive(1, "web.test.cap");
    let huge = SizeModel::Lognormal { mu: 60.0, sigma: 1.0 };
    let tiny = SizeModel::Lognormal { mu: -20.0, sigma: 1.0 };
    for _ in 0..1000 {
        assert_eq!(huge.sample_bytes(&mut rng), FILE_BYTES_MAX);
        assert_eq!(tiny.sample_bytes(&mut rng), 1);
    }
    // Large-files median e^11.92 = 150 545 B; sd of ln(median) ≈ 0.0028 at
    // n = 200 000; allow 0.015.
    let size = CatalogueConfig::for_model(WebModel::LargeFiles).size;
    let mut x: Vec<u64> = (0..200_000).map(|_| size.sample_bytes(&mut rng)).collect();
    x.sort_unstable();
    assert!(((x[100_000] as f64).ln() - 11.92).abs() < 0.015, "median {}", x[100_000]);
}

#[test]
fn zipf_picks_follow_the_rank_permutation() {
    // 1240 objects, s = 1: P(rank 1) = 1/H_1240 = 0.12986, P(rank 2) half of
    // it. 10⁶ picks: sd of the rank-1 share ≈ 0.00034; of the ratio ≈ 0.009.
    let c = build(WebModel::SurgeDefault, 1);
    let top = (0..c.objects()).find(|&o| c.object_rank(o) == Some(0)).unwrap_or(usize::MAX);
    let second = (0..c.objects()).find(|&o| c.object_rank(o) == Some(1)).unwrap_or(usize::MAX);
    let mut rng = Stream::derive(1, "web.user[0]");
    let mut counts = vec![0u32; c.objects()];
    for _ in 0..1_000_000 {
        counts[c.pick_object(&mut rng)] += 1;
    }
    let p1 = counts[top] as f64 / 1e6;
    assert!((p1 - 0.129_862).abs() < 0.0017, "P(rank 1) {p1}");
    let ratio = counts[top] as f64 / counts[second] as f64;
    assert!((ratio - 2.0).abs() < 0.05, "ratio {ratio}");
}

#[test]
fn uniform_picks_cover_every_object() {
    // 124 000 picks over 1240 objects: 100 each, sd ≈ 10; every object is
    // hit (P(miss) ≈ e^−100) and none more than 100 + 6 sd.
    let c = build(WebModel::LargeFiles, 1);
    assert_eq!(c.object_rank(0), None);
    let mut rng = Stream::derive(1, "web.user[0]");
    let mut counts = vec![0u32; c.objects()];
    for _ in 0..124_000 {
        counts[c.pick_object(&mut rng)] += 1;
    }
    assert!(counts.iter().all(|&k| k > 0 && k < 160), "min {:?} max {:?}", counts.iter().min(), counts.iter().max());
}

#[test]
fn think_time_is_pareto_in_seconds() {
    // Pareto(1.4, 2 s): all ≥ 2 s, median 2 · 2^(1/1.4) = 3.2813 s (sd of the
    // sample median ≈ 0.0052 s at n = 200 000).
    let c = build(WebModel::LargeFiles, 1);
    let mut rng = Stream::derive(1, "web.user[0]");
    let mut t: Vec<f64> = (0..200_000).map(|_| c.think_time(&mut rng).as_secs_f64()).collect();
    assert!(t.iter().all(|&s| (2.0..=THINK_TIME_MAX_S).contains(&s)));
    t.sort_by(f64::total_cmp);
    assert!((t[100_000] - 3.2813).abs() < 0.03, "median {}", t[100_000]);
}

#[test]
fn model_names_and_validation() {
    for model in MODELS {
        assert_eq!(model.as_str().parse::<WebModel>(), Ok(model));
        assert_eq!(CatalogueConfig::for_model(model).validate(), Ok(()));
    }
    assert!("surge".parse::<WebModel>().is_err());
    let ok = CatalogueConfig::for_model(WebModel::SurgeDefault);
    assert_eq!(EmbeddedCount::SURGE1998, EmbeddedCount::ParetoFloor { alpha: 2.43, k: 1.0 });
    let bad = [
        CatalogueConfig { files: 0, ..ok },
        CatalogueConfig { loner_share: 0.5, ..ok },
        CatalogueConfig { popularity: Popularity::Zipf { exponent: f64::NAN }, ..ok },
        CatalogueConfig {
            size: SizeModel::Spliced { mu: 9.357, sigma: 1.318, tail_alpha: 1.1, tail_k_bytes: 133_000.0, tail_share: Some(1.5) },
            ..ok
        },
        CatalogueConfig { embedded: EmbeddedCount::Geometric { mean: 0.5 }, ..ok },
        CatalogueConfig { max_files_per_object: 0, ..ok },
        CatalogueConfig { think_k_s: 0.0, ..ok },
    ];
    for cfg in bad {
        assert!(cfg.validate().is_err(), "{cfg:?}");
    }
}
