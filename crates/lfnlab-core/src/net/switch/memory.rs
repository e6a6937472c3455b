//! Packet memory accounting and sharing (spec 05 §2.2 "Memory accounting
//! unit", "Sharing policy", "Drop policy"): a pool of `total` units split into
//! queues. A frame is charged in bytes or in cells and is admitted whole or
//! discarded whole (drop-tail, no push-out).

use super::config::{MemUnit, SharePolicy};

/// One memory pool and the queues it feeds.
#[derive(Clone, Debug)]
pub struct MemPool {
    unit: MemUnit,
    cell_bytes: u64,
    policy: SharePolicy,
    /// `B_total` in units.
    total: u64,
    /// Per-queue limit in units (`SP`).
    queue_limit: u64,
    /// A second, coarser partition (M4's per-output `B_port`): queue q belongs
    /// to group q / group_size, whose use may not exceed group_limit units.
    group: Option<(usize, u64)>,
    alpha: f64,
    used: u64,
    per_queue: Vec<u64>,
    per_group: Vec<u64>,
    /// Highest `used` so far.
    pub max_used: u64,
}

impl MemPool {
    /// A pool of `queues` queues; sizes in bytes, converted to cells (rounded
    /// down) when the unit is `Cell`.
    pub fn new(unit: MemUnit, cell_bytes: u32, policy: SharePolicy, total_bytes: u64, queue_limit_bytes: u64, alpha: f64, queues: usize) -> MemPool {
        let to_units = |b: u64| match unit {
            MemUnit::Byte => b,
            MemUnit::Cell => b / cell_bytes as u64,
        };
        MemPool {
            unit,
            cell_bytes: cell_bytes as u64,
            policy,
            total: to_units(total_bytes),
            queue_limit: to_units(queue_limit_bytes),
            group: None,
            alpha,
            used: 0,
            per_queue: vec![0; queues],
            per_group: Vec::new(),
            max_used: 0,
        }
    }

    /// Add the M4 partition: consecutive groups of `size` queues, each limited
    /// to `limit_bytes` in total.
    pub fn with_groups(mut self, size: usize, limit_bytes: u64) -> MemPool {
        let limit = match self.unit {
            MemUnit::Byte => limit_bytes,
            MemUnit::Cell => limit_bytes / self.cell_bytes,
        };
        self.per_group = vec![0; self.per_queue.len().div_ceil(size)];
        self.group = Some((size, limit));
        self
    }

    /// What a frame of `l2_bytes` costs: bytes, or ceil(L2/C) cells.
    #[inline]
    pub fn charge(&self, l2_bytes: u64) -> u64 {
        match self.unit {
            MemUnit::Byte => l2_bytes,
            MemUnit::Cell => l2_bytes.div_ceil(self.cell_bytes),
        }
    }

    /// Units one crossing cell frees (cell-mode release, spec 05 §2.2 "Memory release").
    #[inline]
    pub fn per_cell(&self) -> u64 {
        match self.unit {
            MemUnit::Byte => self.cell_bytes,
            MemUnit::Cell => 1,
        }
    }

    /// Admit `charge` units to queue `q` if the policy allows (spec 05 §2.2).
    #[inline]
    pub fn try_admit(&mut self, q: usize, charge: u64) -> bool {
        let fits = match self.policy {
            SharePolicy::Cs => self.used + charge <= self.total,
            SharePolicy::Sp => self.per_queue[q] + charge <= self.queue_limit,
            // CHOICE: the total is a hard limit too, so α > 1 cannot overfill the memory.
            SharePolicy::Dt => {
                self.used + charge <= self.total
                    && (self.per_queue[q] + charge) as f64 <= self.alpha * (self.total - self.used) as f64
            }
        };
        let group_fits = self.group.is_none_or(|(size, limit)| self.per_group[q / size] + charge <= limit);
        if !(fits && group_fits) {
            return false;
        }
        self.used += charge;
        self.per_queue[q] += charge;
        if let Some((size, _)) = self.group {
            self.per_group[q / size] += charge;
        }
        self.max_used = self.max_used.max(self.used);
        true
    }

    /// Give back `units` of queue `q`.
    #[inline]
    pub fn release(&mut self, q: usize, units: u64) {
        debug_assert!(self.per_queue[q] >= units && self.used >= units, "release more than held");
        self.used -= units;
        self.per_queue[q] -= units;
        if let Some((size, _)) = self.group {
            self.per_group[q / size] -= units;
        }
    }

    /// Bytes one unit stands for.
    pub fn unit_bytes(&self) -> u64 {
        match self.unit {
            MemUnit::Byte => 1,
            MemUnit::Cell => self.cell_bytes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_round_up_and_cs_fills_the_pool_exactly() {
        // 1518 B in 64-byte cells: ceil(1518/64) = 24 cells (spec 05 §2.3 check).
        let mut p = MemPool::new(MemUnit::Cell, 64, SharePolicy::Cs, 48 * 64, 0, 1.0, 2);
        assert_eq!(p.charge(1518), 24);
        assert_eq!(p.charge(64), 1);
        assert!(p.try_admit(0, 24));
        assert!(p.try_admit(1, 24));
        assert!(!p.try_admit(0, 1), "48 of 48 cells used");
        p.release(1, 1);
        assert!(p.try_admit(0, 1));
        assert_eq!(p.max_used, 48);
    }

    #[test]
    fn static_partition_limits_each_queue_alone() {
        let mut p = MemPool::new(MemUnit::Byte, 64, SharePolicy::Sp, 0, 3000, 1.0, 2);
        assert!(p.try_admit(0, 1518));
        assert!(!p.try_admit(0, 1518), "1518 + 1518 > 3000");
        assert!(p.try_admit(1, 1518));
    }

    #[test]
    fn dynamic_threshold_with_alpha_one_stops_a_queue_at_half_the_pool() {
        // len_q + c ≤ α·(B − used): one queue alone settles where len = B − len, i.e. B/2.
        let mut p = MemPool::new(MemUnit::Byte, 64, SharePolicy::Dt, 10_000, 0, 1.0, 2);
        let mut n = 0;
        while p.try_admit(0, 1000) {
            n += 1;
        }
        assert_eq!(n, 5, "5·1000 ≤ 10000 − 4000 holds for the 5th, the 6th would need 6000 ≤ 5000");
        // The other queue still gets α·(B − used) = 5000 minus its own length.
        assert!(p.try_admit(1, 1000));
    }

    #[test]
    fn groups_cap_the_sum_of_their_queues() {
        // M4: two sub-queues of 16 KiB in an output of 32 KiB; a third would overflow the output.
        let mut p = MemPool::new(MemUnit::Byte, 64, SharePolicy::Sp, 0, 16 * 1024, 1.0, 4).with_groups(4, 32 * 1024);
        for q in 0..2 {
            for _ in 0..10 {
                assert!(p.try_admit(q, 1518));
            }
        }
        assert!(!p.try_admit(0, 1518), "sub-queue 0 holds 15180 B; 16698 > 16384");
        assert!(p.try_admit(2, 1518), "output holds 30360 B; 31878 ≤ 32768");
        assert!(!p.try_admit(3, 1518), "output would hold 33396 B > 32768");
    }
}
