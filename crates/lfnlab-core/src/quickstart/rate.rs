//! The 4-bit Quick-Start rate encoding shared by request, report and response
//! (spec 02 §2.2.1, RFC 4782 §4.1): Rate(N) = 40 000 · 2^N bit/s for N = 1..15,
//! Rate(0) = 0 (refusal). Rates are gross rates (IP and transport headers included).

/// Largest encodable rate code (the field has 4 bits): Rate(15) = 1 310.72 Mbit/s.
pub const MAX_RATE_CODE: u8 = 15;

/// Rate(1) in bit/s; Rate(N) = `RATE_UNIT_BPS` · 2^(N−1) = 40 000 · 2^N.
const RATE_UNIT_BPS: u64 = 80_000;

/// Rate(N) in bit/s (spec 02 §2.2.1). `0` → 0; `N` in 1..=15 → 40 000 · 2^N.
///
/// Codes above [`MAX_RATE_CODE`] cannot occur on the wire (the field has 4 bits);
/// a caller that passes one gets Rate(15): the code is clamped, never wrapped,
/// so an out-of-range request can only be read as "the largest rate".
pub const fn rate_bps(code: u8) -> u64 {
    let n = if code > MAX_RATE_CODE { MAX_RATE_CODE } else { code };
    if n == 0 { 0 } else { RATE_UNIT_BPS << (n - 1) }
}

/// Largest N with Rate(N) ≤ `rate_bps` (spec 02 §2.2.1 `code_floor`); 0 if
/// `rate_bps` < 80 kbit/s (including negative values and NaN); 15 for anything
/// at or above Rate(15), including +∞. Used to round a grant down to an
/// encodable rate (spec 02 §2.5.4).
pub fn code_floor(rate_bps: f64) -> u8 {
    // Rate(N) ≤ 1.4e9 < 2^53: every table value is exact in an f64.
    let mut code = 0;
    for n in 1..=MAX_RATE_CODE {
        if self::rate_bps(n) as f64 <= rate_bps {
            code = n;
        } else {
            break;
        }
    }
    code
}

/// Smallest N ≥ 1 with Rate(N) ≥ `rate_bps` (spec 02 §2.2.1 `code_ceil`); 15 if
/// `rate_bps` > Rate(15).
///
/// The result is always a usable request code in 1..=15: `rate_bps` ≤ 80 kbit/s,
/// including 0, negative values and NaN, gives 1 (the smallest encodable
/// non-zero rate), because code 0 is a refusal and never a request
/// (spec 02 §2.4 rule 2). A caller that wants "no request" for a zero demand
/// has to decide that before converting.
pub fn code_ceil(rate_bps: f64) -> u8 {
    if rate_bps.is_nan() {
        return 1;
    }
    for n in 1..=MAX_RATE_CODE {
        if self::rate_bps(n) as f64 >= rate_bps {
            return n;
        }
    }
    MAX_RATE_CODE
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_table_of_spec_02_2_2_1() {
        // Rate(N) = 40 000 · 2^N: 80 kbit/s … 1 310.72 Mbit/s.
        let expected: [u64; 16] = [
            0,
            80_000,
            160_000,
            320_000,
            640_000,
            1_280_000,
            2_560_000,
            5_120_000,
            10_240_000,
            20_480_000,
            40_960_000,
            81_920_000,
            163_840_000,
            327_680_000,
            655_360_000,
            1_310_720_000,
        ];
        for (n, &r) in expected.iter().enumerate() {
            assert_eq!(rate_bps(n as u8), r, "N = {n}");
            assert_eq!(rate_bps(n as u8), if n == 0 { 0 } else { 40_000 * (1 << n) });
        }
    }

    #[test]
    fn codes_above_15_are_clamped() {
        assert_eq!(rate_bps(16), 1_310_720_000);
        assert_eq!(rate_bps(255), 1_310_720_000);
    }

    #[test]
    fn code_floor_at_and_between_table_values() {
        for n in 1..=MAX_RATE_CODE {
            let r = rate_bps(n) as f64;
            assert_eq!(code_floor(r), n, "at Rate({n})");
            assert_eq!(code_floor(r - 1.0), n - 1, "just below Rate({n})");
            assert_eq!(code_floor(r + 1.0), n, "just above Rate({n})");
        }
        // 9 Mbit/s lies between Rate(7) = 5.12 and Rate(8) = 10.24 Mbit/s.
        assert_eq!(code_floor(9e6), 7);
        // 5 Mbit/s lies between Rate(6) = 2.56 and Rate(7) = 5.12 Mbit/s.
        assert_eq!(code_floor(5e6), 6);
        assert_eq!(code_floor(79_999.999), 0);
        assert_eq!(code_floor(0.0), 0);
        assert_eq!(code_floor(-1e6), 0);
        assert_eq!(code_floor(f64::NAN), 0);
        assert_eq!(code_floor(1e12), 15);
        assert_eq!(code_floor(f64::INFINITY), 15);
    }

    #[test]
    fn code_ceil_at_and_between_table_values() {
        for n in 1..=MAX_RATE_CODE {
            let r = rate_bps(n) as f64;
            assert_eq!(code_ceil(r), n, "at Rate({n})");
            if n > 1 {
                assert_eq!(code_ceil(r - 1.0), n, "just below Rate({n})");
            }
            assert_eq!(code_ceil(r + 1.0), (n + 1).min(MAX_RATE_CODE), "just above Rate({n})");
        }
        // 9 Mbit/s and 5.2 Mbit/s both lie in (Rate(7), Rate(8)] = (5.12, 10.24] Mbit/s → 8;
        // 5 Mbit/s lies in (Rate(6), Rate(7)] → 7.
        assert_eq!(code_ceil(9e6), 8);
        assert_eq!(code_ceil(5.2e6), 8);
        assert_eq!(code_ceil(5e6), 7);
        // Above Rate(15): 15.
        assert_eq!(code_ceil(2e9), 15);
        assert_eq!(code_ceil(f64::INFINITY), 15);
        // r ≤ 0 (and NaN): the smallest request code, 1.
        assert_eq!(code_ceil(0.0), 1);
        assert_eq!(code_ceil(-3.0), 1);
        assert_eq!(code_ceil(1.0), 1);
        assert_eq!(code_ceil(f64::NAN), 1);
    }
}
