//! The 30-bit QS Nonce (spec 02 §2.2.4, RFC 4782 §4.4).
//!
//! Bytes 4–7 of an option are a big-endian word W; nonce = W >> 2, reserved = W & 3.
//! This module holds the nonce as the 30-bit integer `W >> 2`. The spec numbers
//! nonce bits from the most significant end: nonce bit 0 is the most significant
//! bit of byte 4, i.e. integer bit 29; nonce bit b is integer bit 29 − b.
//!
//! The nonce is fifteen 2-bit fields, one per rate step. The field of step
//! K→K−1 is nonce bits 2(15−K) and 2(15−K)+1, i.e. integer bits 2K−1 and 2K−2:
//! step 1→0 is the two least significant bits, step 15→14 the two most
//! significant. For an echoed rate K the fields of steps K→K−1 … 1→0 are
//! therefore the low 2K integer bits (nonce bits 30−2K … 29).

use super::rate::MAX_RATE_CODE;
use crate::engine::rng::Stream;

/// The 30 nonce bits of the integer representation.
pub const NONCE_MASK: u32 = (1 << 30) - 1;

/// The nonce of an option's bytes-4–7 word (spec 02 §2.2.4: nonce = W >> 2).
pub fn nonce_from_word(word: u32) -> u32 {
    word >> 2
}

/// `word` with its 30 nonce bits replaced by `nonce` (masked); the 2 reserved
/// bits of `word` are kept.
pub fn word_with_nonce(word: u32, nonce: u32) -> u32 {
    ((nonce & NONCE_MASK) << 2) | (word & 0b11)
}

/// Integer-bit mask of the field of rate step `k`→`k`−1 (spec 02 §2.2.4 table):
/// integer bits 2k−1 and 2k−2 (nonce bits 2(15−k), 2(15−k)+1). 0 for `k` = 0;
/// `k` above 15 is clamped to 15.
pub fn step_field_mask(k: u8) -> u32 {
    let k = k.min(MAX_RATE_CODE);
    if k == 0 { 0 } else { 0b11 << (2 * (k as u32) - 2) }
}

/// Integer-bit mask of the fields of steps `k`→`k`−1 … 1→0: the low 2k bits,
/// the part of the nonce an echo of rate `k` must keep (spec 02 §2.3.5 check 3).
/// `k` above 15 is clamped to 15.
pub fn low_fields_mask(k: u8) -> u32 {
    let k = k.min(MAX_RATE_CODE) as u32;
    (1u32 << (2 * k)) - 1
}

/// 30 uniform random bits (spec 02 §2.3.3): the top 30 bits of one draw.
pub fn random_nonce(rng: &mut Stream) -> u32 {
    (rng.next_u64() >> 34) as u32
}

/// The nonce after a node lowered the rate from `k_old` to `k_new` (spec 02
/// §2.2.4, §2.5.5): the fields of steps `k_old`→`k_old`−1 … `k_new`+1→`k_new`
/// (2·(k_old − k_new) bits, integer bits 2·k_new … 2·k_old − 1) get fresh random
/// bits; all other bits are unchanged. A fresh field may by chance equal the old
/// one. No change (and no draw) when `k_new` ≥ `k_old`; codes above 15 are
/// clamped to 15.
pub fn rerandomize(nonce: u32, k_old: u8, k_new: u8, rng: &mut Stream) -> u32 {
    let k_old = k_old.min(MAX_RATE_CODE);
    let k_new = k_new.min(MAX_RATE_CODE);
    if k_new >= k_old {
        return nonce & NONCE_MASK;
    }
    let mask = low_fields_mask(k_old) & !low_fields_mask(k_new);
    ((nonce & !mask) | (random_nonce(rng) & mask)) & NONCE_MASK
}

/// Nonce check of a response echoing rate `k` (spec 02 §2.3.5 check 3):
/// `(echo ^ stored) & ((1 << 2K) − 1) == 0`. Bits of the fields of steps above
/// `k` are ignored; `k` = 0 matches anything (the caller refuses rate 0 anyway).
pub fn echo_matches(stored: u32, echoed: u32, k: u8) -> bool {
    (echoed ^ stored) & low_fields_mask(k) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Integer bit of spec nonce bit `b` (nonce bit 0 = integer bit 29).
    fn int_bit(b: u32) -> u32 {
        29 - b
    }

    #[test]
    fn step_fields_match_the_spec_table() {
        // Spec 02 §2.2.4 table: (nonce bits, step K→K−1).
        let table: [(u32, u8); 15] = [
            (0, 15), (2, 14), (4, 13), (6, 12), (8, 11), (10, 10), (12, 9), (14, 8),
            (16, 7), (18, 6), (20, 5), (22, 4), (24, 3), (26, 2), (28, 1),
        ];
        let mut union = 0;
        for (first, k) in table {
            let expected = (1 << int_bit(first)) | (1 << int_bit(first + 1));
            assert_eq!(step_field_mask(k), expected, "step {k}→{}", k - 1);
            assert_eq!(first, 2 * (15 - k as u32));
            assert_eq!(union & expected, 0);
            union |= expected;
        }
        assert_eq!(union, NONCE_MASK);
        // Step 8→7 = nonce bits 14–15 = integer bits 15 and 14.
        assert_eq!(step_field_mask(8), (1 << 15) | (1 << 14));
        assert_eq!(step_field_mask(0), 0);
    }

    #[test]
    fn echo_fields_are_the_rightmost_2k_bits() {
        // Rate K keeps nonce bits 30−2K … 29 = integer bits 0 … 2K−1.
        for k in 1..=15u8 {
            let from_table: u32 = (1..=k).map(step_field_mask).fold(0, |a, m| a | m);
            assert_eq!(low_fields_mask(k), from_table);
            let lowest_nonce_bit = 30 - 2 * k as u32;
            assert_eq!(low_fields_mask(k), (1 << (int_bit(lowest_nonce_bit) + 1)) - 1);
        }
        assert_eq!(low_fields_mask(15), NONCE_MASK);
    }

    #[test]
    fn word_layout() {
        assert_eq!(nonce_from_word(0xAAF3_7BC7), 0x2ABC_DEF1);
        assert_eq!(word_with_nonce(0xFFFF_FFFF, 0), 0b11);
        assert_eq!(word_with_nonce(0, u32::MAX), 0xFFFF_FFFC);
    }

    #[test]
    fn random_nonce_has_30_uniform_bits() {
        let mut rng = Stream::derive(5, "nonce");
        let draws = 20_000;
        let mut ones = [0u32; 30];
        for _ in 0..draws {
            let n = random_nonce(&mut rng);
            assert_eq!(n & !NONCE_MASK, 0);
            for (b, c) in ones.iter_mut().enumerate() {
                *c += (n >> b) & 1;
            }
        }
        // Each bit ~ Binomial(20 000, 1/2): sd = sqrt(20 000/4) ≈ 70.7; allow 5 sd.
        for (b, &c) in ones.iter().enumerate() {
            assert!((c as f64 - 10_000.0).abs() < 5.0 * 70.7, "bit {b}: {c}");
        }
    }

    #[test]
    fn reducing_8_to_7_changes_only_nonce_bits_14_15() {
        let mut rng = Stream::derive(11, "rerandomize");
        let field = (1 << int_bit(14)) | (1 << int_bit(15));
        assert_eq!(field, 0b11 << 14);
        let draws = 4_000;
        let mut changed = [0u32; 2];
        for i in 0..draws {
            let stored = random_nonce(&mut rng);
            let new = rerandomize(stored, 8, 7, &mut rng);
            let diff = stored ^ new;
            assert_eq!(diff & !field, 0, "draw {i}: bits outside 14–15 changed");
            changed[0] += (diff >> 14) & 1;
            changed[1] += (diff >> 15) & 1;
            // The receiver echoes rate 7: the check covers the low 14 bits only.
            assert!(echo_matches(stored, new, 7));
        }
        // Each bit flips with probability 1/2: sd ≈ sqrt(4000/4) ≈ 31.6; allow 5 sd.
        for c in changed {
            assert!((c as f64 - 2_000.0).abs() < 5.0 * 31.6, "{c}");
        }
    }

    #[test]
    fn reducing_15_to_3_replaces_24_bits() {
        let mut rng = Stream::derive(12, "rerandomize");
        let keep = low_fields_mask(3); // integer bits 0..=5
        let mut seen_changes = 0u32;
        for _ in 0..2_000 {
            let stored = random_nonce(&mut rng);
            let new = rerandomize(stored, 15, 3, &mut rng);
            assert_eq!((stored ^ new) & keep, 0);
            assert_eq!(new & !NONCE_MASK, 0);
            seen_changes |= stored ^ new;
        }
        // Over 2000 draws every one of the 24 replaced bits flips at least once.
        assert_eq!(seen_changes, NONCE_MASK & !keep);
    }

    #[test]
    fn no_reduction_no_change() {
        let mut rng = Stream::derive(13, "rerandomize");
        assert_eq!(rerandomize(0x1234_5678, 7, 7, &mut rng), 0x1234_5678);
        assert_eq!(rerandomize(0x1234_5678, 6, 7, &mut rng), 0x1234_5678);
    }

    #[test]
    fn echo_check() {
        let stored = 0x2ABC_DEF1;
        // K = 7 ignores the step-8 field (integer bits 14, 15) and everything above.
        assert!(echo_matches(stored, stored ^ (0b11 << 14), 7));
        assert!(echo_matches(stored, stored ^ (1 << 29), 7));
        // … but not a change in the step-7 field (integer bits 12, 13).
        assert!(!echo_matches(stored, stored ^ (1 << 13), 7));
        // K = 8 sees the step-8 field.
        assert!(!echo_matches(stored, stored ^ (1 << 15), 8));
        // K = 15 covers all 30 bits; K = 1 only the two lowest.
        assert!(!echo_matches(stored, stored ^ (1 << 29), 15));
        assert!(echo_matches(stored, stored ^ !0b11, 1));
        assert!(!echo_matches(stored, stored ^ 0b10, 1));
    }
}
