//! Running hash of every executed event (spec 06 §7 V6: identical event-log hash).

/// FNV-1a-style hash over 64-bit words: (time, kind·2^32 + target) of each event.
#[derive(Clone, Copy, Debug)]
pub struct EventLog {
    hash: u64,
    count: u64,
}

impl Default for EventLog {
    fn default() -> Self {
        EventLog { hash: 0xcbf2_9ce4_8422_2325, count: 0 }
    }
}

impl EventLog {
    #[inline]
    pub fn record(&mut self, time_ps: u64, kind: u8, target: u32) {
        const PRIME: u64 = 0x0000_0100_0000_01b3;
        let h = (self.hash ^ time_ps).wrapping_mul(PRIME);
        self.hash = (h ^ (((kind as u64) << 32) | target as u64)).wrapping_mul(PRIME);
        self.count += 1;
    }

    pub fn hash_hex(&self) -> String {
        format!("{:016x}", self.hash)
    }

    pub fn count(&self) -> u64 {
        self.count
    }
}
