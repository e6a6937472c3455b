//! Crossbar schedulers (spec 05 §2.2 M2 and M3): each fabric slot they match
//! free inputs to free outputs, each in at most one pair. Port sets are 64-bit
//! masks, so a slot costs a few operations per request, not per port pair.

use super::config::{IqSelect, Sched};
use crate::engine::rng::Stream;

/// No partner.
pub const UNMATCHED: u8 = u8::MAX;

/// The members of `mask` at or after `start` (the rest come after them in
/// round-robin order).
#[inline]
fn from_start(mask: u64, start: usize) -> u64 {
    if start >= 64 { 0 } else { mask & (!0u64 << start) }
}

/// The first member of `mask` at or after `start`, wrapping (round-robin order).
#[inline]
pub fn rr_pick(mask: u64, start: usize) -> usize {
    debug_assert!(mask != 0);
    let from = from_start(mask, start);
    if from != 0 { from.trailing_zeros() as usize } else { mask.trailing_zeros() as usize }
}

/// The members of `mask` in round-robin order from `start`.
pub fn rr_order(mask: u64, start: usize) -> impl Iterator<Item = usize> {
    let from = from_start(mask, start);
    members(from).chain(members(mask & !from))
}

/// A member of `mask` chosen uniformly at random.
#[inline]
pub fn random_pick(mask: u64, rng: &mut Stream) -> usize {
    debug_assert!(mask != 0);
    let k = ((rng.next_u64() as u128 * mask.count_ones() as u128) >> 64) as u32;
    let mut m = mask;
    for _ in 0..k {
        m &= m - 1;
    }
    m.trailing_zeros() as usize
}

/// Iterate the members of a mask, lowest first.
#[inline]
pub fn members(mut mask: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if mask == 0 {
            return None;
        }
        let i = mask.trailing_zeros() as usize;
        mask &= mask - 1;
        Some(i)
    })
}

/// A scheduler and its state.
pub struct Scheduler {
    n: usize,
    kind: Kind,
    iterations: u32,
    /// Grant pointers `g_j` (iSLIP, M2 round robin) and accept pointers `a_i` (iSLIP).
    grant_ptr: Vec<u8>,
    accept_ptr: Vec<u8>,
    /// The wavefront's priority diagonal.
    diagonal: usize,
    rng: Stream,
    /// Scratch: per output the requesting inputs; per input the granting outputs.
    col: Vec<u64>,
    grants: Vec<u64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Voq(Sched),
    Fifo(IqSelect),
}

impl Scheduler {
    /// A VOQ crossbar scheduler (M3).
    pub fn voq(n: usize, sched: Sched, iterations: u32, rng: Stream) -> Scheduler {
        Scheduler::new(n, Kind::Voq(sched), iterations, rng)
    }

    /// The output-side selection of an input-FIFO switch (M2).
    pub fn fifo(n: usize, select: IqSelect, rng: Stream) -> Scheduler {
        Scheduler::new(n, Kind::Fifo(select), 1, rng)
    }

    fn new(n: usize, kind: Kind, iterations: u32, rng: Stream) -> Scheduler {
        assert!((2..=64).contains(&n), "a scheduler needs 2 to 64 ports");
        Scheduler { n, kind, iterations, grant_ptr: vec![0; n], accept_ptr: vec![0; n], diagonal: 0, rng, col: vec![0; n], grants: vec![0; n] }
    }

    /// Match requests: `req[i]` is the set of outputs input i asks for (only
    /// inputs in `in_free` and outputs in `out_free` take part). Writes the
    /// output of each newly matched input into `matched` and returns the set
    /// of matched inputs.
    pub fn schedule(&mut self, req: &[u64], in_free: u64, out_free: u64, matched: &mut [u8]) -> u64 {
        match self.kind {
            Kind::Voq(Sched::Wfa) => self.wavefront(req, in_free, out_free, matched),
            Kind::Voq(s) => self.request_grant_accept(s == Sched::Pim, req, in_free, out_free, matched),
            Kind::Fifo(sel) => self.fifo_select(sel == IqSelect::Random, req, in_free, out_free, matched),
        }
    }

    /// The state change of `slots` more calls of [`Scheduler::schedule`] whose
    /// matching is forced: `pairs` matched pairs, each input requesting only its
    /// output and each output requested only by its input (0 pairs: a call
    /// that matches nothing). Pointers and round robins repeat themselves; the
    /// random choices are drawn (and have one candidate); the wavefront's
    /// diagonal advances once per slot.
    pub fn repeat_forced(&mut self, slots: u64, pairs: u32) {
        let draws = match self.kind {
            Kind::Voq(Sched::Pim) => 2 * pairs as u64,
            Kind::Fifo(IqSelect::Random) => pairs as u64,
            Kind::Voq(Sched::Wfa) => {
                self.diagonal = ((self.diagonal as u64 + slots) % self.n as u64) as usize;
                0
            }
            _ => 0,
        };
        self.skip_draws(draws * slots);
    }

    /// Whether each output grants its requesters in round-robin order from a
    /// grant pointer that moves past the input it served (iSLIP; M2 with `rr`).
    /// When every input requests a single output, such an output serves its
    /// requesters cyclically, one per slot, whatever the iteration count.
    pub fn grants_round_robin(&self) -> bool {
        matches!(self.kind, Kind::Voq(Sched::Islip) | Kind::Fifo(IqSelect::Rr))
    }

    /// When every input requests a single output, whether each output picks one
    /// of its requesters at random (PIM; M2 with `random`), and then how many
    /// more numbers a slot draws per matched pair: PIM's accept step draws once
    /// per granted input (it has one grant; a second iteration finds nothing to
    /// match), M2's selection nothing.
    pub fn grants_random(&self) -> Option<u64> {
        match self.kind {
            Kind::Voq(Sched::Pim) => Some(1),
            Kind::Fifo(IqSelect::Random) => Some(0),
            _ => None,
        }
    }

    /// Draw and discard `n` numbers (draws whose choice has one candidate).
    #[inline]
    pub fn skip_draws(&mut self, n: u64) {
        self.rng.skip(n);
    }

    /// The random stream, for a caller that draws exactly as `schedule` would
    /// (the random-grant jump, which can take back a slot's draws).
    #[inline]
    pub fn rng_mut(&mut self) -> &mut Stream {
        &mut self.rng
    }

    /// Output `j`'s grant pointer.
    pub fn grant_pointer(&self, j: usize) -> usize {
        self.grant_ptr[j] as usize
    }

    /// The pointer state after output `j` served `served` (each requesting only
    /// `j`) cyclically and `last` last: g_j = last + 1, and (iSLIP) each served
    /// input's accept pointer a_i = j + 1 (spec 05 §2.2 M3 step 4).
    pub fn served_round_robin(&mut self, j: usize, served: u64, last: usize) {
        self.grant_ptr[j] = ((last + 1) % self.n) as u8;
        if matches!(self.kind, Kind::Voq(_)) {
            for i in members(served) {
                self.accept_ptr[i] = ((j + 1) % self.n) as u8;
            }
        }
    }

    /// Gather, per free output, the free inputs that request it. Returns the
    /// outputs with at least one request.
    #[inline]
    fn gather(&mut self, req: &[u64], in_free: u64, out_free: u64) -> u64 {
        let mut touched = 0u64;
        for i in members(in_free) {
            for j in members(req[i] & out_free) {
                if touched & (1 << j) == 0 {
                    self.col[j] = 0;
                    touched |= 1 << j;
                }
                self.col[j] |= 1 << i;
            }
        }
        touched
    }

    /// iSLIP (pointers, spec 05 §2.2 M3 steps 1–5) or PIM (random choices).
    fn request_grant_accept(&mut self, random: bool, req: &[u64], mut in_free: u64, mut out_free: u64, matched: &mut [u8]) -> u64 {
        let mut newly = 0u64;
        for it in 0..self.iterations {
            // 1. Request, 2. Grant.
            let outs = self.gather(req, in_free, out_free);
            if outs == 0 {
                break;
            }
            let mut granted_inputs = 0u64;
            for j in members(outs) {
                let i = if random { random_pick(self.col[j], &mut self.rng) } else { rr_pick(self.col[j], self.grant_ptr[j] as usize) };
                if granted_inputs & (1 << i) == 0 {
                    self.grants[i] = 0;
                    granted_inputs |= 1 << i;
                }
                self.grants[i] |= 1 << j;
            }
            // 3. Accept, 4. pointers move only for first-iteration acceptances.
            for i in members(granted_inputs) {
                let j = if random { random_pick(self.grants[i], &mut self.rng) } else { rr_pick(self.grants[i], self.accept_ptr[i] as usize) };
                matched[i] = j as u8;
                newly |= 1 << i;
                in_free &= !(1 << i);
                out_free &= !(1 << j);
                if !random && it == 0 {
                    self.grant_ptr[j] = ((i + 1) % self.n) as u8;
                    self.accept_ptr[i] = ((j + 1) % self.n) as u8;
                }
            }
        }
        newly
    }

    /// Wavefront arbiter: sweep the request matrix diagonal by diagonal from a
    /// priority diagonal that advances each slot; a request is granted if its
    /// row and column are still free.
    fn wavefront(&mut self, req: &[u64], mut in_free: u64, mut out_free: u64, matched: &mut [u8]) -> u64 {
        let n = self.n;
        let mut newly = 0u64;
        let active = members(in_free).filter(|&i| req[i] & out_free != 0).fold(0u64, |m, i| m | 1 << i);
        for d in 0..n {
            let diag = (self.diagonal + d) % n;
            for i in members(active & in_free) {
                let j = (diag + n - i) % n;
                if req[i] & out_free & (1 << j) != 0 {
                    matched[i] = j as u8;
                    newly |= 1 << i;
                    in_free &= !(1 << i);
                    out_free &= !(1 << j);
                }
            }
        }
        self.diagonal = (self.diagonal + 1) % n;
        newly
    }

    /// M2: each input requests only its head frame's output; each output picks
    /// one requester, round robin from its pointer or at random.
    fn fifo_select(&mut self, random: bool, req: &[u64], in_free: u64, out_free: u64, matched: &mut [u8]) -> u64 {
        let mut newly = 0u64;
        let outs = self.gather(req, in_free, out_free);
        for j in members(outs) {
            let i = if random {
                random_pick(self.col[j], &mut self.rng)
            } else {
                let i = rr_pick(self.col[j], self.grant_ptr[j] as usize);
                self.grant_ptr[j] = ((i + 1) % self.n) as u8;
                i
            };
            matched[i] = j as u8;
            newly |= 1 << i;
        }
        newly
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn full(n: usize) -> u64 {
        if n == 64 { !0 } else { (1u64 << n) - 1 }
    }

    #[test]
    fn rr_pick_wraps() {
        assert_eq!(rr_pick(0b1001, 1), 3);
        assert_eq!(rr_pick(0b1001, 4), 0);
        assert_eq!(rr_pick(0b1001, 0), 0);
        assert_eq!(rr_pick(1 << 63, 63), 63);
    }

    #[test]
    fn random_pick_is_uniform_over_members() {
        let mut rng = Stream::derive(3, "pick");
        let mut hits = [0u32; 64];
        for _ in 0..30_000 {
            hits[random_pick(0b1010_0100, &mut rng)] += 1;
        }
        for b in [2, 5, 7] {
            // 10000 expected, binomial sd ≈ 82.
            assert!((hits[b] as i64 - 10_000).abs() < 500, "bit {b}: {}", hits[b]);
        }
        assert_eq!(hits.iter().sum::<u32>(), 30_000);
    }

    #[test]
    fn islip_desynchronises_under_full_load_in_n_slots() {
        // McKeown 1999: with every VOQ backlogged, iSLIP's grant pointers
        // desynchronise and it reaches a full matching every slot.
        let n = 8;
        let mut s = Scheduler::voq(n, Sched::Islip, 1, Stream::derive(1, "s"));
        let req = vec![full(n); n];
        let mut m = vec![UNMATCHED; n];
        let sizes: Vec<u32> = (0..3 * n).map(|_| s.schedule(&req, full(n), full(n), &mut m).count_ones()).collect();
        assert_eq!(sizes[0], 1, "first slot: all outputs grant input 0, which accepts one");
        assert!(sizes[2 * n..].iter().all(|&k| k == n as u32), "{sizes:?}");
    }

    #[test]
    fn islip_round_robins_two_inputs_for_one_output() {
        let mut s = Scheduler::voq(4, Sched::Islip, 1, Stream::derive(1, "s"));
        let req = vec![0b100, 0b100, 0, 0];
        let mut m = vec![UNMATCHED; 4];
        let winners: Vec<u64> = (0..6).map(|_| s.schedule(&req, 0b11, 0b1111, &mut m)).collect();
        assert_eq!(winners, [0b01, 0b10, 0b01, 0b10, 0b01, 0b10]);
        assert_eq!(m[0], 2);
    }

    #[test]
    fn matchings_are_valid_for_every_scheduler() {
        let n = 16;
        let mut rng = Stream::derive(9, "req");
        for kind in [Sched::Islip, Sched::Pim, Sched::Wfa] {
            for iters in [1, 4] {
                let mut s = Scheduler::voq(n, kind, iters, Stream::derive(2, "s"));
                for _ in 0..500 {
                    let req: Vec<u64> = (0..n).map(|_| rng.next_u64() & full(n)).collect();
                    let in_free = rng.next_u64() & full(n);
                    let out_free = rng.next_u64() & full(n);
                    let mut m = vec![UNMATCHED; n];
                    let got = s.schedule(&req, in_free, out_free, &mut m);
                    assert_eq!(got & !in_free, 0, "{kind:?}: only free inputs match");
                    let mut outs = 0u64;
                    for i in members(got) {
                        let j = m[i] as usize;
                        assert!(req[i] & (1 << j) != 0, "{kind:?}: a match answers a request");
                        assert!(out_free & (1 << j) != 0 && outs & (1 << j) == 0, "{kind:?}: each free output once");
                        outs |= 1 << j;
                    }
                    // A wavefront sweep is maximal: no request left between a free input and a free output.
                    if kind == Sched::Wfa {
                        for i in members(in_free & !got) {
                            assert_eq!(req[i] & out_free & !outs, 0, "wavefront matching is maximal");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn fifo_round_robin_alternates_contenders() {
        let mut s = Scheduler::fifo(4, IqSelect::Rr, Stream::derive(1, "s"));
        let req = vec![0b1000, 0b1000, 0b0001, 0];
        let mut m = vec![UNMATCHED; 4];
        let a = s.schedule(&req, 0b111, 0b1111, &mut m);
        let b = s.schedule(&req, 0b111, 0b1111, &mut m);
        assert_eq!((a, b), (0b101, 0b110), "input 2 alone on output 0 always wins; 0 and 1 alternate");
    }
}
