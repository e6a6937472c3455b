//! The application above a sender: how many bytes it has written into the
//! send buffer, how many it will write in all, and when (spec 06 §2.3 sender
//! rule 1; spec 03 F3's rate-limited source; spec 04 §2.7's external writer).
//! Sans-IO: the sender passes its sequence state in (`snd_una`, `mss`).

use crate::engine::time::{PS_PER_S, SimTime, Span};

/// The application's side of the send buffer.
#[derive(Clone, Debug)]
pub struct AppSource {
    /// Payload bytes written into the socket so far (the end of the data
    /// the sender may send).
    pub written: u64,
    /// Bytes to write in all (None: unlimited, a bulk transfer).
    total: Option<u64>,
    /// The writer blocked on a full buffer and waits for Q_snd ≤ ⅔·B_snd.
    blocked: bool,
    /// A rate-limited source (spec 03 F3 `r_disk`): the application has
    /// produced at most rate × (now − epoch) bytes, in whole segments.
    rate_bps: Option<u64>,
    epoch: SimTime,
    /// The send buffer B_snd, bytes.
    pub b_snd_bytes: u64,
    /// An application modelled outside (spec 04 §2.7 writer) adds data with
    /// [`push`](Self::push); [`write`](Self::write) then does nothing.
    external_writer: bool,
}

impl AppSource {
    pub fn new(b_snd_bytes: u64) -> AppSource {
        AppSource { written: 0, total: None, blocked: false, rate_bps: None, epoch: SimTime::ZERO, b_snd_bytes, external_writer: false }
    }

    /// The application of a flow (set before the connection opens).
    pub fn set(&mut self, total: Option<u64>, rate_bps: Option<u64>, external_writer: bool) {
        self.total = total;
        self.rate_bps = rate_bps;
        self.external_writer = external_writer;
    }

    /// The writer waits on a full buffer (Linux SOCK_NOSPACE).
    pub fn blocked(&self) -> bool {
        self.blocked
    }

    pub fn set_external_writer(&mut self) {
        self.external_writer = true;
    }

    pub fn external_writer(&self) -> bool {
        self.external_writer
    }

    pub fn rate_limited(&self) -> bool {
        self.rate_bps.is_some()
    }

    /// The total to write is now `total` (a response, spec 02 §3.1).
    pub fn set_total(&mut self, total: Option<u64>) {
        self.total = total;
    }

    /// `bytes` more to write (a Web request or response, spec 02 §3.2).
    pub fn add(&mut self, bytes: u64) {
        self.total = Some(self.total.unwrap_or(0) + bytes);
    }

    /// Production of a rate-limited source starts now (establishment).
    pub fn start(&mut self, now: SimTime) {
        self.epoch = now;
    }

    /// Everything the application will write has been acknowledged.
    pub fn all_acked(&self, snd_una: u64) -> bool {
        self.total.is_some_and(|t| snd_una >= t)
    }

    /// Unacknowledged plus unsent payload (spec 06 §2.3 sender rule 1).
    fn q_snd(&self, snd_una: u64) -> u64 {
        self.written - snd_una
    }

    /// Bytes a rate-limited application has produced by `now`, whole segments (∞ if unlimited).
    fn produced(&self, now: SimTime, mss: u32) -> u64 {
        let Some(bps) = self.rate_bps else { return u64::MAX };
        let bytes = now.since(self.epoch).ps() as u128 * bps as u128 / (8 * PS_PER_S as u128);
        let mss = mss.max(1) as u64;
        (bytes as u64) / mss * mss
    }

    /// When a rate-limited application will have produced its next segment,
    /// if the socket is waiting for it (`established`).
    pub fn wake_at(&self, established: bool, mss: u32) -> Option<SimTime> {
        let bps = self.rate_bps?;
        if !established || self.blocked || self.total.is_some_and(|t| self.written >= t) {
            return None;
        }
        let next = self.written + mss.max(1) as u64;
        let ps = (next as u128 * 8 * PS_PER_S as u128).div_ceil(bps as u128);
        Some(self.epoch + Span(ps.min(u64::MAX as u128) as u64))
    }

    /// The blocked writer may go on once Q_snd ≤ ⅔·B_snd.
    fn unblocked(&mut self, snd_una: u64) -> bool {
        if self.blocked {
            if self.q_snd(snd_una) * 3 > self.b_snd_bytes * 2 {
                return false;
            }
            self.blocked = false;
        }
        true
    }

    /// The application writes while Q_snd < B_snd, else blocks until Q_snd ≤ ⅔·B_snd.
    pub fn write(&mut self, now: SimTime, snd_una: u64, mss: u32) {
        if self.external_writer || !self.unblocked(snd_una) {
            return;
        }
        let room = self.b_snd_bytes.saturating_sub(self.q_snd(snd_una));
        let left = self.total.map_or(u64::MAX, |t| t - self.written);
        let produced = self.produced(now, mss).saturating_sub(self.written);
        let write = room.min(left);
        self.written += write.min(produced);
        if let Some(bps) = self.rate_bps.filter(|_| produced > write) {
            // The application blocked on the full buffer: a reader stops reading
            // meanwhile, so production restarts from what it has written.
            let ps = self.written as u128 * 8 * PS_PER_S as u128 / bps as u128;
            self.epoch = SimTime(now.ps().saturating_sub(ps.min(u64::MAX as u128) as u64));
        }
        if self.q_snd(snd_una) >= self.b_snd_bytes {
            self.blocked = true;
        }
    }

    /// Bytes a write() may hand over now (spec 04 §2.8 sender rule 1): room
    /// below B_snd, 0 while blocked (until Q_snd ≤ ⅔·B_snd) or before the
    /// connection is `established`.
    pub fn writer_room(&mut self, established: bool, snd_una: u64) -> u64 {
        if !established || !self.unblocked(snd_una) {
            return 0;
        }
        let left = self.total.map_or(u64::MAX, |t| t - self.written);
        self.b_snd_bytes.saturating_sub(self.q_snd(snd_una)).min(left)
    }

    /// A write() of the external writer handed over `bytes`.
    pub fn push(&mut self, bytes: u64, snd_una: u64) {
        debug_assert!(self.external_writer);
        self.written += bytes;
        debug_assert!(self.total.is_none_or(|t| self.written <= t));
        if self.q_snd(snd_una) >= self.b_snd_bytes {
            self.blocked = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_writer_blocks_at_b_snd_and_resumes_at_two_thirds() {
        // B_snd = 3000: the application writes 3000 and blocks.
        let mut a = AppSource::new(3000);
        a.write(SimTime::ZERO, 0, 1000);
        assert_eq!(a.written, 3000);
        // 500 acknowledged: Q_snd = 2500 > 2000, still blocked.
        a.write(SimTime::ZERO, 500, 1000);
        assert_eq!(a.written, 3000);
        assert_eq!(a.writer_room(true, 500), 0);
        // 1000 acknowledged: Q_snd = 2000 ≤ ⅔·3000, it writes up to B_snd again.
        a.write(SimTime::ZERO, 1000, 1000);
        assert_eq!(a.written, 4000);
    }

    #[test]
    fn a_rate_limited_source_produces_whole_segments() {
        // 8 Mbit/s = 1 byte/µs: after 2.5 ms, 2500 bytes, two whole 1000-byte segments.
        let mut a = AppSource::new(1 << 20);
        a.set(None, Some(8_000_000), false);
        a.start(SimTime::ZERO);
        a.write(SimTime::ZERO + Span::from_us(2500), 0, 1000);
        assert_eq!(a.written, 2000);
        assert_eq!(a.wake_at(true, 1000), Some(SimTime::ZERO + Span::from_us(3000)));
        assert!(!a.all_acked(2000), "an unlimited source is never all acknowledged");
    }
}
