//! The Quick-Start receiver (spec 02 §2.4): computes TTL Diff of an arriving
//! request and echoes rate, TTL Diff and nonce once, in TCP option kind 27 on
//! the first ACK that acknowledges the carrying segment. Sans-IO.

use super::option::{IpQs, QsResponse};

/// How the receiver's flow control treats an approval (spec 02 §2.4 rule 4,
/// `qs.recv.rwnd_policy`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RecvRwndPolicy {
    /// Advertise the free buffer from the start (no gradual opening; default).
    #[default]
    FullBuffer,
    /// Open the window gradually from 4·MSS (Linux `rcv_ssthresh`) and, when
    /// echoing an approval, raise it to min(free, ⌈Rate(N)/8 · RTT_r⌉ + 4·MSS).
    LinuxLike,
}

impl RecvRwndPolicy {
    pub const NAMES: &'static [&'static str] = &["full_buffer", "linux_like"];
}

impl std::str::FromStr for RecvRwndPolicy {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "full_buffer" => Ok(RecvRwndPolicy::FullBuffer),
            "linux_like" => Ok(RecvRwndPolicy::LinuxLike),
            _ => Err(format!("one of {}", Self::NAMES.join(", "))),
        }
    }
}

/// The echo of one connection end.
#[derive(Clone, Copy, Debug)]
pub struct QsEcho {
    /// Highest rate code echoed (`recv_max_rate_code`).
    max_rate_code: u8,
    /// The response waiting for its ACK, and the sequence number the ACK must
    /// reach (`None`: a SYN or SYN-ACK, answered by the handshake segment).
    pending: Option<(QsResponse, Option<u64>)>,
    /// Requests echoed, and responses dropped for lack of TCP option space.
    pub echoed: u64,
    pub no_space: u64,
}

impl QsEcho {
    pub fn new(max_rate_code: u8) -> QsEcho {
        QsEcho { max_rate_code, pending: None, echoed: 0, no_space: 0 }
    }

    /// A packet arrived with IP TTL `ttl` and raw Quick-Start option `ip_qs`;
    /// `seq_end` is the sequence number just past its data (`None` for a SYN
    /// or SYN-ACK). Rule 1: a request with rate > 0 is echoed; rule 2: rate 0
    /// gets no response; reports and unknown functions are ignored.
    /// Returns true when the packet carried a request (for an immediate ACK);
    /// [`QsEcho::pending_rate`] then holds the rate code that will be echoed.
    pub fn on_packet(&mut self, ttl: u8, ip_qs: &[u8; 8], seq_end: Option<u64>) -> bool {
        match IpQs::decode(ip_qs) {
            Some(IpQs::Request { rate, qs_ttl, nonce }) if rate > 0 => {
                let echo = QsResponse { rate: rate.min(self.max_rate_code), ttl_diff: ttl.wrapping_sub(qs_ttl), nonce };
                self.pending = Some((echo, seq_end));
                true
            }
            _ => false,
        }
    }

    /// The rate code of the response waiting to be echoed, if any.
    pub fn pending_rate(&self) -> Option<u8> {
        self.pending.map(|(r, _)| r.rate)
    }

    /// The response for a handshake segment (SYN-ACK or the handshake ACK).
    pub fn take_for_handshake(&mut self) -> Option<QsResponse> {
        match self.pending {
            Some((r, None)) => {
                self.pending = None;
                self.echoed += 1;
                Some(r)
            }
            _ => None,
        }
    }

    /// The response for an ACK of `ack` with `free_option_bytes` of TCP option
    /// space left (spec 02 §2.2.5: dropped, and counted, when it does not fit).
    /// Rule 3: never repeated.
    pub fn take_for_ack(&mut self, ack: u64, free_option_bytes: u32) -> Option<QsResponse> {
        let (r, end) = self.pending?;
        if end.is_some_and(|e| ack < e) {
            return None;
        }
        self.pending = None;
        if free_option_bytes < super::option::OPT_BYTES {
            self.no_space += 1;
            return None;
        }
        self.echoed += 1;
        Some(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(rate: u8, qs_ttl: u8, nonce: u32) -> [u8; 8] {
        IpQs::Request { rate, qs_ttl, nonce }.encode()
    }

    #[test]
    fn echo_once_with_ttl_diff() {
        let mut e = QsEcho::new(15);
        // IP TTL 62 on arrival, QS TTL 200: TTL Diff = (62 − 200) mod 256 = 118.
        assert!(e.on_packet(62, &request(9, 200, 0x1234_5678 & ((1 << 30) - 1)), Some(1000)));
        assert_eq!(e.take_for_ack(999, 40), None, "the ACK must cover the carrying segment");
        let r = e.take_for_ack(1000, 40).unwrap();
        assert_eq!((r.rate, r.ttl_diff), (9, 118));
        assert_eq!(e.take_for_ack(2000, 40), None, "never repeated");
    }

    #[test]
    fn rate_zero_and_reports_get_no_response() {
        let mut e = QsEcho::new(15);
        assert!(!e.on_packet(64, &request(0, 1, 1), None));
        assert!(!e.on_packet(64, &IpQs::Report { rate: 5, nonce: 3 }.encode(), None));
        assert!(!e.on_packet(64, &[0; 8], None));
        assert_eq!(e.take_for_handshake(), None);
    }

    #[test]
    fn receiver_lowers_to_its_maximum_and_counts_no_space() {
        let mut e = QsEcho::new(6);
        e.on_packet(64, &request(9, 64, 5), None);
        assert_eq!(e.take_for_handshake().unwrap().rate, 6);
        e.on_packet(64, &request(9, 64, 5), Some(10));
        assert_eq!(e.take_for_ack(10, 4), None);
        assert_eq!(e.no_space, 1);
    }
}
