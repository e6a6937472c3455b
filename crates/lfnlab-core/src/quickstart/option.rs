//! Byte-exact Quick-Start option encodings: the IPv4 option (type 25) with its
//! Rate Request and Report of Approved Rate functions (spec 02 §2.2.2, §2.2.3)
//! and the TCP Quick-Start Response option (kind 27, spec 02 §2.2.5).
//!
//! All three share one 8-byte layout:
//!
//! | Byte | Bits   | IP option (25)                         | TCP response (27) |
//! |------|--------|----------------------------------------|-------------------|
//! | 0    | 0–7    | type 25                                | kind 27           |
//! | 1    | 8–15   | length 8                               | length 8          |
//! | 2    | 16–19  | Function (0000 request, 1000 report)   | reserved 0        |
//! | 2    | 20–23  | rate code N                            | rate code N       |
//! | 3    | 24–31  | QS TTL (request) / not used 0 (report) | TTL Diff          |
//! | 4–7  | 32–61  | QS Nonce (30 bits, spec 02 §2.2.4)     | echoed nonce      |
//! | 7    | 62–63  | reserved 0                             | reserved 0        |
//!
//! Encoders write every reserved or unused bit as 0; decoders ignore them
//! ("sender sets 0; others ignore"). The `write_*` helpers edit one field of a
//! received option in place and leave every other bit (reserved bits included)
//! as it was, which is what a forwarding node does (spec 02 §2.5.5).

use super::nonce::{nonce_from_word, word_with_nonce};
use super::rate::MAX_RATE_CODE;

/// IPv4 option type of Quick-Start: copy flag 0, class 0, number 25 (spec 02 §2.2.2).
pub const IP_OPT_TYPE: u8 = 25;
/// Length byte of the IPv4 Quick-Start option (spec 02 §2.2.2).
pub const IP_OPT_LEN: u8 = 8;
/// TCP option kind of the Quick-Start Response (spec 02 §2.2.5).
pub const TCP_OPT_KIND: u8 = 27;
/// Length byte of the TCP Quick-Start Response option (spec 02 §2.2.5).
pub const TCP_OPT_LEN: u8 = 8;
/// Bytes one Quick-Start option adds to the IPv4 header (IHL + 2) or takes from
/// the 40 TCP option bytes (spec 02 §2.2.2, §2.2.5, §2.2.7).
pub const OPT_BYTES: u32 = 8;
/// Function field of a Rate Request (spec 02 §2.2.2).
pub const FUNC_REQUEST: u8 = 0b0000;
/// Function field of a Report of Approved Rate (spec 02 §2.2.3).
pub const FUNC_REPORT: u8 = 0b1000;

/// A decoded IPv4 Quick-Start option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IpQs {
    /// Function 0000: Rate Request (spec 02 §2.2.2).
    Request {
        /// Requested rate code N (0..=15, §2.2.1).
        rate: u8,
        /// QS TTL, chosen at random by the sender and lowered by approving hops.
        qs_ttl: u8,
        /// The 30-bit nonce (bytes 4–7 read big-endian, shifted right by 2).
        nonce: u32,
    },
    /// Function 1000: Report of Approved Rate (spec 02 §2.2.3).
    Report {
        /// Approved rate code actually used, or 0.
        rate: u8,
        /// The 30-bit nonce of the request this report answers.
        nonce: u32,
    },
    /// A reserved Function value, or a type-25 option whose length byte is not 8.
    /// Nodes forward it unchanged and receivers ignore it (spec 02 §2.2.3).
    Other {
        /// The Function nibble (byte 2, bits 16–19).
        function: u8,
        /// The option exactly as received; [`IpQs::encode`] returns it unchanged.
        raw: [u8; 8],
    },
}

/// Clamps a rate code to the 4-bit field; out-of-range codes read as 15, as in
/// [`super::rate::rate_bps`].
fn rate_nibble(rate: u8) -> u8 {
    rate.min(MAX_RATE_CODE)
}

/// Bytes 4–7 as a big-endian word (spec 02 §2.2.4).
fn word(raw: &[u8; 8]) -> u32 {
    u32::from_be_bytes([raw[4], raw[5], raw[6], raw[7]])
}

/// The common 8-byte layout with reserved bits zero.
fn layout(kind: u8, len: u8, high_nibble: u8, rate: u8, byte3: u8, nonce: u32) -> [u8; 8] {
    let w = word_with_nonce(0, nonce).to_be_bytes();
    [kind, len, (high_nibble << 4) | rate_nibble(rate), byte3, w[0], w[1], w[2], w[3]]
}

impl IpQs {
    /// The 8 option bytes (spec 02 §2.2.2, §2.2.3), reserved and unused bits 0.
    /// Rate codes above 15 are clamped to 15; the nonce is masked to 30 bits.
    pub fn encode(&self) -> [u8; 8] {
        match *self {
            IpQs::Request { rate, qs_ttl, nonce } => layout(IP_OPT_TYPE, IP_OPT_LEN, FUNC_REQUEST, rate, qs_ttl, nonce),
            IpQs::Report { rate, nonce } => layout(IP_OPT_TYPE, IP_OPT_LEN, FUNC_REPORT, rate, 0, nonce),
            IpQs::Other { raw, .. } => raw,
        }
    }

    /// Reads an IPv4 Quick-Start option. `None` when `raw[0]` is not 25: no
    /// option present (the all-zero array is the "absent" convention). A type-25
    /// option with a length byte other than 8 is malformed and comes back as
    /// [`IpQs::Other`], so that it is forwarded untouched and never evaluated.
    pub fn decode(raw: &[u8; 8]) -> Option<IpQs> {
        if raw[0] != IP_OPT_TYPE {
            return None;
        }
        let function = raw[2] >> 4;
        let rate = raw[2] & 0x0F;
        let nonce = nonce_from_word(word(raw));
        Some(match (raw[1], function) {
            (IP_OPT_LEN, FUNC_REQUEST) => IpQs::Request { rate, qs_ttl: raw[3], nonce },
            (IP_OPT_LEN, FUNC_REPORT) => IpQs::Report { rate, nonce },
            _ => IpQs::Other { function, raw: *raw },
        })
    }
}

/// A decoded TCP Quick-Start Response option (spec 02 §2.2.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QsResponse {
    /// Echoed rate code (possibly lowered by the receiver's own policy).
    pub rate: u8,
    /// (IP TTL − QS TTL) mod 256 of the received request packet.
    pub ttl_diff: u8,
    /// The echoed 30-bit nonce.
    pub nonce: u32,
}

impl QsResponse {
    /// The 8 option bytes, reserved bits 0; rate clamped to 15, nonce masked to 30 bits.
    pub fn encode(&self) -> [u8; 8] {
        layout(TCP_OPT_KIND, TCP_OPT_LEN, 0, self.rate, self.ttl_diff, self.nonce)
    }

    /// Reads a TCP Quick-Start Response. `None` when `raw[0]` is not 27, and also
    /// when the length byte is not 8 (a malformed response counts as no response).
    pub fn decode(raw: &[u8; 8]) -> Option<QsResponse> {
        if raw[0] != TCP_OPT_KIND || raw[1] != TCP_OPT_LEN {
            return None;
        }
        Some(QsResponse { rate: raw[2] & 0x0F, ttl_diff: raw[3], nonce: nonce_from_word(word(raw)) })
    }
}

/// Overwrites the rate nibble (byte 2, bits 20–23) of a received option; the
/// Function nibble and all other bytes stay as they were (spec 02 §2.5.5).
pub fn write_rate(raw: &mut [u8; 8], rate: u8) {
    raw[2] = (raw[2] & 0xF0) | rate_nibble(rate);
}

/// Overwrites byte 3 (QS TTL of a request) of a received option.
pub fn write_qs_ttl(raw: &mut [u8; 8], qs_ttl: u8) {
    raw[3] = qs_ttl;
}

/// Overwrites the 30 nonce bits of a received option, keeping its 2 reserved bits.
pub fn write_nonce(raw: &mut [u8; 8], nonce: u32) {
    let w = word_with_nonce(word(raw), nonce).to_be_bytes();
    raw[4..8].copy_from_slice(&w);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quickstart::nonce::NONCE_MASK;

    #[test]
    fn request_bytes_by_hand() {
        // Rate 7, QS TTL 0xAB, nonce 0x2ABCDEF1 & mask.
        let nonce = 0x2ABC_DEF1 & NONCE_MASK;
        assert_eq!(nonce, 0x2ABC_DEF1); // already 30 bits (top hex digit 2 = 0b10)
        let raw = IpQs::Request { rate: 7, qs_ttl: 0xAB, nonce }.encode();
        // Bytes 4–7 = nonce << 2 = 0xAAF37BC4 (0x2ABCDEF1 · 4), reserved bits 62–63 = 0.
        assert_eq!(0x2ABC_DEF1u32 << 2, 0xAAF3_7BC4);
        assert_eq!(raw, [0x19, 0x08, 0x07, 0xAB, 0xAA, 0xF3, 0x7B, 0xC4]);
        assert_eq!(raw[2] >> 4, FUNC_REQUEST);
        assert_eq!(raw[7] & 0b11, 0);
        assert_eq!(IpQs::decode(&raw), Some(IpQs::Request { rate: 7, qs_ttl: 0xAB, nonce }));
    }

    #[test]
    fn request_nonce_is_masked_to_30_bits() {
        // 0xFFFFFFFF & mask = 0x3FFFFFFF → word 0xFFFFFFFC.
        let raw = IpQs::Request { rate: 15, qs_ttl: 0, nonce: u32::MAX }.encode();
        assert_eq!(raw, [25, 8, 0x0F, 0x00, 0xFF, 0xFF, 0xFF, 0xFC]);
    }

    #[test]
    fn report_bytes_by_hand() {
        // Function 1000, rate 6 → byte 2 = 0x86; byte 3 unused = 0; nonce 1 → word 4.
        let raw = IpQs::Report { rate: 6, nonce: 1 }.encode();
        assert_eq!(raw, [25, 8, 0x86, 0x00, 0x00, 0x00, 0x00, 0x04]);
        assert_eq!(IpQs::decode(&raw), Some(IpQs::Report { rate: 6, nonce: 1 }));
        // Report(0) with the top nonce bit (nonce bit 0 = integer bit 29) set.
        let raw = IpQs::Report { rate: 0, nonce: 1 << 29 }.encode();
        assert_eq!(raw, [25, 8, 0x80, 0x00, 0x80, 0x00, 0x00, 0x00]);
    }

    #[test]
    fn response_bytes_by_hand() {
        // Kind 27, reserved nibble 0, rate 7, TTL Diff 0x3C, nonce 0x15555555 → word 0x55555554.
        let raw = QsResponse { rate: 7, ttl_diff: 0x3C, nonce: 0x1555_5555 }.encode();
        assert_eq!(raw, [0x1B, 0x08, 0x07, 0x3C, 0x55, 0x55, 0x55, 0x54]);
        assert_eq!(QsResponse::decode(&raw), Some(QsResponse { rate: 7, ttl_diff: 0x3C, nonce: 0x1555_5555 }));
    }

    #[test]
    fn decoders_ignore_reserved_bits() {
        // Request with reserved bits 62–63 = 11 and the same nonce as above.
        let raw = [0x19, 0x08, 0x07, 0xAB, 0xAA, 0xF3, 0x7B, 0xC7];
        assert_eq!(IpQs::decode(&raw), Some(IpQs::Request { rate: 7, qs_ttl: 0xAB, nonce: 0x2ABC_DEF1 }));
        // Report with a non-zero "not used" byte 3.
        let raw = [25, 8, 0x83, 0x77, 0, 0, 0, 0x07];
        assert_eq!(IpQs::decode(&raw), Some(IpQs::Report { rate: 3, nonce: 1 }));
        // Response with a non-zero reserved nibble.
        let raw = [27, 8, 0xF5, 1, 0, 0, 0, 0x0B];
        assert_eq!(QsResponse::decode(&raw), Some(QsResponse { rate: 5, ttl_diff: 1, nonce: 2 }));
    }

    #[test]
    fn absent_reserved_and_malformed_options() {
        assert_eq!(IpQs::decode(&[0; 8]), None);
        assert_eq!(IpQs::decode(&[27, 8, 7, 0, 0, 0, 0, 0]), None);
        assert_eq!(QsResponse::decode(&[0; 8]), None);
        assert_eq!(QsResponse::decode(&[25, 8, 7, 0, 0, 0, 0, 0]), None);
        assert_eq!(QsResponse::decode(&[27, 6, 7, 0, 0, 0, 0, 0]), None);
        // Function 0100 is reserved: kept verbatim.
        let raw = [25, 8, 0x47, 0xAB, 1, 2, 3, 7];
        assert_eq!(IpQs::decode(&raw), Some(IpQs::Other { function: 0b0100, raw }));
        assert_eq!(IpQs::Other { function: 0b0100, raw }.encode(), raw);
        // Wrong length with a request Function: malformed, kept verbatim.
        let raw = [25, 6, 0x07, 0xAB, 1, 2, 3, 4];
        assert_eq!(IpQs::decode(&raw), Some(IpQs::Other { function: 0, raw }));
    }

    #[test]
    fn round_trips() {
        let mut x: u32 = 0x1234_5678;
        for i in 0..2000u32 {
            // A small LCG walks the field space deterministically.
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            let rate = (i % 16) as u8;
            let ttl = (x >> 24) as u8;
            let nonce = x & NONCE_MASK;
            for opt in [IpQs::Request { rate, qs_ttl: ttl, nonce }, IpQs::Report { rate, nonce }] {
                assert_eq!(IpQs::decode(&opt.encode()), Some(opt));
            }
            let resp = QsResponse { rate, ttl_diff: ttl, nonce };
            assert_eq!(QsResponse::decode(&resp.encode()), Some(resp));
        }
    }

    #[test]
    fn in_place_writers_keep_other_bits() {
        // Reserved bits 11 and a request function nibble must survive.
        let mut raw = [0x19, 0x08, 0x07, 0xAB, 0xAA, 0xF3, 0x7B, 0xC7];
        write_rate(&mut raw, 5);
        write_qs_ttl(&mut raw, 0xAA);
        write_nonce(&mut raw, 0);
        assert_eq!(raw, [0x19, 0x08, 0x05, 0xAA, 0x00, 0x00, 0x00, 0x03]);
        let mut raw = IpQs::Report { rate: 4, nonce: 9 }.encode();
        write_rate(&mut raw, 0);
        assert_eq!(raw[2], 0x80);
    }
}
