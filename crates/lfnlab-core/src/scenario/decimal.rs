//! Exact decimal numbers for unit strings (spec 00 §2.1).
//!
//! `"62.5MB/s"` must mean exactly 500 000 000 bit/s, so the number is read as an
//! integer mantissa and a power of ten, never as a float, and scaled by the
//! unit's integer factor with checked arithmetic.

/// Why a number could not be turned into a whole count of base units.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum DecimalError {
    /// No number at the start of the string.
    NoNumber,
    /// The string starts with `-`.
    Negative,
    /// The scaled value is not a whole number of base units.
    NotWhole,
    /// The scaled value does not fit in 64 bits.
    TooLarge,
}

/// A non-negative decimal `mantissa · 10^exponent`, trailing zeros folded into the exponent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Decimal {
    mantissa: u128,
    exponent: i64,
}

/// Largest exponent magnitude kept exactly; beyond it a non-zero value overflows
/// (positive) or is not whole (negative) for every factor a unit can have.
const EXPONENT_LIMIT: i64 = 1_000;

/// Splits `text` into a decimal number and the rest (the unit).
///
/// Accepted number form: `DIGITS [ "." DIGITS ] [ ("e" | "E") [ "+" | "-" ] DIGITS ]`.
pub(crate) fn split_number(text: &str) -> Result<(Decimal, &str), DecimalError> {
    if text.starts_with('-') {
        return Err(DecimalError::Negative);
    }
    let bytes = text.as_bytes();
    let mut i = 0;
    let int_start = i;
    while i < bytes.len() && bytes[i].is_ascii_digit() {
        i += 1;
    }
    if i == int_start {
        return Err(DecimalError::NoNumber);
    }
    let int_digits = &text[int_start..i];
    let mut frac_digits = "";
    if i + 1 < bytes.len() && bytes[i] == b'.' && bytes[i + 1].is_ascii_digit() {
        let start = i + 1;
        i = start;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
        frac_digits = &text[start..i];
    }
    let mut exp: i64 = 0;
    if i < bytes.len() && (bytes[i] == b'e' || bytes[i] == b'E') {
        let mut j = i + 1;
        let negative = j < bytes.len() && bytes[j] == b'-';
        if j < bytes.len() && (bytes[j] == b'-' || bytes[j] == b'+') {
            j += 1;
        }
        let digits_start = j;
        while j < bytes.len() && bytes[j].is_ascii_digit() {
            j += 1;
        }
        // Only an exponent with digits counts; otherwise `e` belongs to the unit.
        if j > digits_start {
            let mut magnitude: i64 = 0;
            for d in text[digits_start..j].bytes() {
                magnitude = (magnitude * 10 + i64::from(d - b'0')).min(EXPONENT_LIMIT * 10);
            }
            exp = if negative { -magnitude } else { magnitude };
            i = j;
        }
    }
    let decimal = Decimal::from_digits(int_digits, frac_digits, exp)?;
    Ok((decimal, &text[i..]))
}

impl Decimal {
    fn from_digits(int_digits: &str, frac_digits: &str, exp: i64) -> Result<Decimal, DecimalError> {
        let all = format!("{int_digits}{frac_digits}");
        let significant = all.trim_start_matches('0');
        let trimmed = significant.trim_end_matches('0');
        if trimmed.is_empty() {
            return Ok(Decimal {
                mantissa: 0,
                exponent: 0,
            });
        }
        let folded_zeros = (significant.len() - trimmed.len()) as i64;
        let exponent = exp + folded_zeros - frac_digits.len() as i64;
        // 38 significant digits always fit in a u128.
        if trimmed.len() > 38 {
            return Err(if exponent >= 0 {
                DecimalError::TooLarge
            } else {
                DecimalError::NotWhole
            });
        }
        let mantissa = trimmed
            .bytes()
            .fold(0u128, |m, d| m * 10 + u128::from(d - b'0'));
        Ok(Decimal { mantissa, exponent })
    }

    /// `self · factor` as a whole number, or why not.
    pub(crate) fn scale(self, factor: u64) -> Result<u64, DecimalError> {
        if self.mantissa == 0 || factor == 0 {
            return Ok(0);
        }
        let product = self
            .mantissa
            .checked_mul(u128::from(factor))
            .ok_or(DecimalError::TooLarge)?;
        let value = if self.exponent >= 0 {
            if self.exponent > 38 {
                return Err(DecimalError::TooLarge);
            }
            let power = 10u128.pow(self.exponent as u32);
            product.checked_mul(power).ok_or(DecimalError::TooLarge)?
        } else {
            if -self.exponent > 38 {
                return Err(DecimalError::NotWhole);
            }
            let power = 10u128.pow((-self.exponent) as u32);
            if product % power != 0 {
                return Err(DecimalError::NotWhole);
            }
            product / power
        };
        u64::try_from(value).map_err(|_| DecimalError::TooLarge)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scaled(text: &str, factor: u64) -> Result<(u64, String), DecimalError> {
        let (d, rest) = split_number(text)?;
        Ok((d.scale(factor)?, rest.to_string()))
    }

    #[test]
    fn exact_forms() {
        assert_eq!(
            scaled("62.5MB/s", 8_000_000),
            Ok((500_000_000, "MB/s".into()))
        );
        assert_eq!(
            scaled("9.95Gbps", 1_000_000_000),
            Ok((9_950_000_000, "Gbps".into()))
        );
        assert_eq!(
            scaled("1e-4s", 1_000_000_000_000),
            Ok((100_000_000, "s".into()))
        );
        assert_eq!(scaled("1.5E3ms", 1), Ok((1500, "ms".into())));
        assert_eq!(scaled("0.000ms", 7), Ok((0, "ms".into())));
        assert_eq!(scaled("0100.2500x", 100), Ok((10025, "x".into())));
        // An `e` without digits belongs to the unit.
        assert_eq!(scaled("5e", 1), Ok((5, "e".into())));
        // A trailing dot is not part of the number.
        assert_eq!(scaled("5.ms", 1), Ok((5, ".ms".into())));
    }

    #[test]
    fn refusals() {
        assert_eq!(scaled("-5ms", 1), Err(DecimalError::Negative));
        assert_eq!(scaled("ms", 1), Err(DecimalError::NoNumber));
        assert_eq!(scaled(".5ms", 1), Err(DecimalError::NoNumber));
        assert_eq!(scaled("0.5B", 1), Err(DecimalError::NotWhole));
        assert_eq!(scaled("1e-40ps", 1), Err(DecimalError::NotWhole));
        assert_eq!(scaled("1e20B", 1), Err(DecimalError::TooLarge));
        assert_eq!(
            scaled("1e999999999999999999999s", 1),
            Err(DecimalError::TooLarge)
        );
        assert_eq!(
            scaled("123456789012345678901234567890123456789012B", 1),
            Err(DecimalError::TooLarge)
        );
        assert_eq!(
            scaled("1.23456789012345678901234567890123456789012B", 1),
            Err(DecimalError::NotWhole)
        );
        assert_eq!(
            scaled("18446744073709551616B", 1),
            Err(DecimalError::TooLarge)
        );
        assert_eq!(
            scaled("18446744073709551615B", 1),
            Ok((u64::MAX, "B".into()))
        );
    }
}
