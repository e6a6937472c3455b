//! The input side and crossbar of M2 (one FIFO per input) and M3 (virtual
//! output queues), spec 05 §2.2–2.3. Time is counted in fabric slots here; the
//! switch core maps slots to picoseconds. Each slot the held pairs move one
//! cell, the scheduler matches the remaining free inputs and outputs, and each
//! new pair moves one cell too. Frames are cut into ceil(L2/C) cells; a frame
//! is handed to its output when its last cell has crossed (reassembly at the
//! output, §2.3).

use std::collections::VecDeque;

use super::config::{FabricMode, QUANTUM_INFINITE};
use super::memory::MemPool;
use super::sched::{members, random_pick, rr_order, Scheduler, UNMATCHED};

/// A frame waiting at an input.
#[derive(Clone, Copy, Debug)]
struct Entry<F> {
    frame: F,
    out: u8,
    cells: u32,
    cells_left: u32,
    /// Memory units still held at the input.
    charge_left: u64,
}

/// What crossed the fabric for an output in one slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Crossed<F> {
    /// A cell of a frame that is not complete yet.
    Cell { out: usize },
    /// The last cell: the frame is reassembled at the output.
    Last { out: usize, input: usize, frame: F, cells: u32 },
}

pub struct Fabric<F> {
    n: usize,
    /// M3 keeps one queue per (input, output); M2 one per input.
    voq: bool,
    queues: Vec<VecDeque<Entry<F>>>,
    /// Per input: the outputs it has a frame for (M3: non-empty VOQs; M2: its
    /// head frame's output).
    wants: Vec<u64>,
    /// Inputs whose `wants` is not empty.
    wanting: u64,
    /// Input memory, one pool queue per input.
    pub pool: MemPool,
    cell_bytes: u32,
    mode: FabricMode,
    quantum: u32,
    /// Per input: the output of a connection that persists (packet mode
    /// mid-frame, or a quantum above one) and the units left of its quantum.
    hold: Vec<(u8, u32)>,
    held: u64,
    sched: Scheduler,
    req: Vec<u64>,
    matched: Vec<u8>,
    /// Cells that crossed.
    pub cells_crossed: u64,
    /// Slots in which the fabric ran.
    pub slots: u64,
    /// Frames at the inputs.
    pub frames_held: u64,
    /// Run quiet slots by [`Fabric::run_quiet`] (off only to test it against `step`).
    pub quiet: bool,
}

/// The output buffers a fabric fills (spec 05 §2.2 M3 "Output queue"): per
/// output the bytes held, the outputs that take another cell, the limit.
pub struct OutBuffers<'a> {
    pub bytes: &'a mut [u64],
    pub ready: &'a mut u64,
    pub limit: u64,
    pub cell_bytes: u64,
    pub max_bytes: &'a mut u64,
}

impl OutBuffers<'_> {
    /// A cell reached output `j`: count it, and stop taking cells once the
    /// next one would not fit (CHOICE: backpressure, never a drop).
    #[inline]
    pub fn take_cells(&mut self, j: usize, cells: u64) {
        self.bytes[j] += cells * self.cell_bytes;
        *self.max_bytes = (*self.max_bytes).max(self.bytes[j]);
        if self.bytes[j] + self.cell_bytes > self.limit {
            *self.ready &= !(1 << j);
        }
    }

    /// Cells output `j` takes before it stops being ready.
    #[inline]
    fn room_cells(&self, j: usize) -> u64 {
        (self.limit - self.bytes[j]) / self.cell_bytes
    }
}

impl<F: Copy> Fabric<F> {
    pub fn new(n: usize, voq: bool, pool: MemPool, cell_bytes: u32, mode: FabricMode, quantum: u32, sched: Scheduler) -> Fabric<F> {
        assert!((2..=64).contains(&n));
        let queues = (0..if voq { n * n } else { n }).map(|_| VecDeque::new()).collect();
        Fabric {
            n,
            voq,
            queues,
            wants: vec![0; n],
            wanting: 0,
            pool,
            cell_bytes,
            mode,
            quantum,
            hold: vec![(UNMATCHED, 0); n],
            held: 0,
            sched,
            req: vec![0; n],
            matched: vec![UNMATCHED; n],
            cells_crossed: 0,
            slots: 0,
            frames_held: 0,
            quiet: true,
        }
    }

    #[inline]
    fn qi(&self, i: usize, j: usize) -> usize {
        if self.voq { i * self.n + j } else { i }
    }

    /// Cells a frame of `l2_bytes` needs (spec 05 §2.3).
    #[inline]
    pub fn cells(&self, l2_bytes: u64) -> u32 {
        l2_bytes.div_ceil(self.cell_bytes as u64) as u32
    }

    /// A frame for output `j` becomes eligible at input `i`: admitted to the
    /// input memory, or refused whole (drop-tail, spec 05 §2.2).
    pub fn admit(&mut self, i: usize, j: usize, frame: F, l2_bytes: u64) -> Result<(), F> {
        let charge = self.pool.charge(l2_bytes);
        if !self.pool.try_admit(i, charge) {
            return Err(frame);
        }
        let cells = self.cells(l2_bytes);
        let q = self.qi(i, j);
        self.queues[q].push_back(Entry { frame, out: j as u8, cells, cells_left: cells, charge_left: charge });
        if self.voq || self.queues[q].len() == 1 {
            self.wants[i] |= 1 << j;
            self.wanting |= 1 << i;
        }
        self.frames_held += 1;
        Ok(())
    }

    /// Could a slot move anything, with outputs `out_ready` accepting cells?
    #[inline]
    pub fn has_work(&self, out_ready: u64) -> bool {
        if self.frames_held == 0 {
            return false;
        }
        // Held pairs count only if their output accepts; a free input needs a
        // wanted output that is ready and not held by another input.
        let mut held_outs = 0u64;
        for i in members(self.held) {
            let j = self.hold[i].0 as usize;
            if out_ready & (1 << j) != 0 {
                return true;
            }
            held_outs |= 1 << j;
        }
        members(self.wanting & !self.held).any(|i| self.wants[i] & out_ready & !held_outs != 0)
    }

    /// One fabric slot. `out_ready`: outputs that accept a cell this slot.
    /// Everything that crossed is reported to `sink` in input order.
    pub fn step(&mut self, out_ready: u64, sink: &mut impl FnMut(Crossed<F>)) {
        self.slots += 1;
        let mut in_free = 0u64;
        let mut out_free = out_ready;
        // Held connections keep their input and output (spec 05 §2.2 M3
        // "Service quantum"; §2.3 packet mode), moving a cell if the output accepts.
        for i in members(self.held) {
            out_free &= !(1 << self.hold[i].0);
        }
        for i in members(self.held | self.wanting) {
            if self.held & (1 << i) != 0 {
                let j = self.hold[i].0 as usize;
                if out_ready & (1 << j) != 0 {
                    self.move_cell(i, j, false, sink);
                }
            } else if self.wants[i] != 0 {
                in_free |= 1 << i;
                self.req[i] = self.wants[i];
            }
        }
        if in_free == 0 || out_free == 0 {
            return;
        }
        let got = self.sched.schedule(&self.req, in_free, out_free, &mut self.matched);
        for i in members(got) {
            let j = self.matched[i] as usize;
            self.move_cell(i, j, true, sink);
        }
    }

    /// Move the head cell of queue (i, j) and update the connection.
    fn move_cell(&mut self, i: usize, j: usize, new_match: bool, sink: &mut impl FnMut(Crossed<F>)) {
        let q = self.qi(i, j);
        let per_cell = self.pool.per_cell();
        let e = self.queues[q].front_mut().expect("a matched queue holds a frame");
        debug_assert_eq!(e.out as usize, j);
        e.cells_left -= 1;
        self.cells_crossed += 1;
        let last = e.cells_left == 0;
        // Memory: per cell in cell mode, the whole frame at its last cell in packet mode.
        let free = match (self.mode, last) {
            (_, true) => e.charge_left,
            (FabricMode::Cell, false) => per_cell.min(e.charge_left),
            (FabricMode::Packet, false) => 0,
        };
        e.charge_left -= free;
        self.pool.release(i, free);
        let mut units = if new_match { self.quantum } else { self.hold[i].1 };
        if self.mode == FabricMode::Cell || last {
            units = if units == QUANTUM_INFINITE { units } else { units - 1 };
        }
        if last {
            let e = self.queues[q].pop_front().expect("head frame");
            self.frames_held -= 1;
            sink(Crossed::Last { out: j, input: i, frame: e.frame, cells: e.cells });
            self.refresh_wants(i, j);
        } else {
            sink(Crossed::Cell { out: j });
        }
        let more = self.queues[q].front().is_some_and(|e| e.out as usize == j);
        let keep = (!last && self.mode == FabricMode::Packet) || (units > 0 && more);
        if keep {
            self.hold[i] = (j as u8, units);
            self.held |= 1 << i;
        } else {
            self.hold[i] = (UNMATCHED, 0);
            self.held &= !(1 << i);
        }
    }

    fn refresh_wants(&mut self, i: usize, j: usize) {
        if self.voq {
            if self.queues[self.qi(i, j)].is_empty() {
                self.wants[i] &= !(1 << j);
            }
        } else {
            self.wants[i] = self.queues[i].front().map_or(0, |e| 1u64 << e.out);
        }
        if self.wants[i] == 0 {
            self.wanting &= !(1 << i);
        }
    }

    /// Frames waiting at input `i`.
    pub fn input_frames(&self, i: usize) -> usize {
        if self.voq { (0..self.n).map(|j| self.queues[i * self.n + j].len()).sum() } else { self.queues[i].len() }
    }
}

/// Quiet slots: a shortcut that gives exactly what [`Fabric::step`] would.
///
/// A slot is quiet when no cell that can cross in it is the last of its frame
/// and no connection is held (cell mode with Q = 1, or packet mode inside
/// frames whose pairs are all held). Such a slot changes only cell counts,
/// memory and output buffers, and the scheduler's own state: no frame is
/// reassembled, so nothing reaches an output line and no input's requests
/// change. The core runs the slots that are not quiet through `step`.
impl<F: Copy> Fabric<F> {
    /// Run up to `max_slots` quiet slots from the current one; returns how
    /// many ran (0 when the current slot is not quiet or has nothing to move).
    pub fn run_quiet(&mut self, max_slots: u64, out: &mut OutBuffers<'_>) -> u64 {
        if !self.quiet || max_slots == 0 || self.frames_held == 0 {
            return 0;
        }
        match self.mode {
            FabricMode::Cell if self.held == 0 && self.quantum == 1 => self.quiet_cells(max_slots, out),
            FabricMode::Packet => self.quiet_held(max_slots, out),
            FabricMode::Cell => 0,
        }
    }

    /// Cells left in the head frame of every non-empty queue an input can be
    /// matched to: the least of them (a slot is quiet while it is at least 2).
    fn least_head_cells(&self) -> u32 {
        let mut least = u32::MAX;
        for i in members(self.wanting) {
            for j in members(self.wants[i]) {
                least = least.min(self.queues[self.qi(i, j)].front().expect("a wanted queue holds a frame").cells_left);
            }
        }
        least
    }

    /// Cell mode, Q = 1: the scheduler matches every slot. Slots run one by one
    /// with the real scheduler; when a slot's matching is forced (each matched
    /// input wanted only its output, each output had one requester, every
    /// wanting input matched) the same matching repeats and the following
    /// slots are jumped over at once.
    fn quiet_cells(&mut self, max_slots: u64, out: &mut OutBuffers<'_>) -> u64 {
        let mut least = self.least_head_cells();
        let mut done = 0u64;
        while done < max_slots && least >= 2 {
            let mut jumped = self.jump_round_robin(max_slots - done, out);
            if jumped == 0 {
                jumped = self.jump_random(max_slots - done, out);
            }
            if jumped > 0 {
                self.slots += jumped;
                done += jumped;
                least = self.least_head_cells();
                continue;
            }
            if !members(self.wanting).any(|i| self.wants[i] & *out.ready != 0) {
                break; // nothing can move: the fabric idles (has_work is false)
            }
            let got = self.sched.schedule(&self.wants, self.wanting, *out.ready, &mut self.matched);
            let mut outs = 0u64;
            let mut forced = got == self.wanting;
            for i in members(got) {
                let j = self.matched[i] as usize;
                outs |= 1 << j;
                forced &= self.wants[i] == 1 << j;
                least = least.min(self.cross_quiet(i, j, 1, out));
            }
            self.slots += 1;
            done += 1;
            // A forced matching: every wanting input matched to its only output,
            // so each output had that one requester and the next slot repeats it.
            if forced && least >= 2 && done < max_slots {
                // room ≥ 1 is readiness: an output takes a cell while one more fits.
                let room = members(outs).map(|j| out.room_cells(j)).min().unwrap_or(0);
                let k = (least as u64 - 1).min(max_slots - done).min(room);
                if k > 0 {
                    for i in members(got) {
                        least = least.min(self.cross_quiet(i, self.matched[i] as usize, k as u32, out));
                    }
                    self.sched.repeat_forced(k, got.count_ones());
                    self.slots += k;
                    done += k;
                }
            }
        }
        done
    }

    /// Round-robin grants (iSLIP, M2 `rr`) with every wanting input requesting
    /// one ready output: each output serves its requesters cyclically from its
    /// grant pointer, one cell per slot, so after k slots the requester m-th in
    /// that order has sent ceil((k − m)/r) cells (r requesters). Jumps as many
    /// slots as keep every head frame short of its last cell and every output
    /// ready; returns them (0: not in this regime).
    fn jump_round_robin(&mut self, max_slots: u64, out: &mut OutBuffers<'_>) -> u64 {
        if !self.sched.grants_round_robin() {
            return 0;
        }
        let Some(outs) = self.single_ready_requests(*out.ready) else { return 0 };
        let mut k = max_slots;
        for j in members(outs) {
            let col = self.requesters(outs, j);
            let r = col.count_ones() as u64;
            for (m, i) in rr_order(col, self.sched.grant_pointer(j)).enumerate() {
                let left = self.queues[self.qi(i, j)].front().expect("a wanted queue holds a frame").cells_left as u64;
                k = k.min((left.max(1) - 1) * r + m as u64);
            }
            k = k.min(out.room_cells(j));
        }
        if k == 0 {
            return 0;
        }
        for j in members(outs) {
            let col = self.requesters(outs, j);
            let r = col.count_ones() as u64;
            let (mut served, mut last) = (0u64, 0usize);
            for (m, i) in rr_order(col, self.sched.grant_pointer(j)).enumerate() {
                let m = m as u64;
                if k > m {
                    self.cross_quiet(i, j, ((k - m - 1) / r + 1) as u32, out);
                    served |= 1 << i;
                }
                if m == (k - 1) % r {
                    last = i;
                }
            }
            self.sched.served_round_robin(j, served, last);
        }
        k
    }

    /// Random grants (PIM, M2 `random`) with every wanting input requesting one
    /// ready output: each slot each such output picks one of its requesters
    /// (in output order, as `schedule` draws), the pick crosses one cell, and
    /// PIM's accept step draws once per pair. Runs slots so while no picked
    /// cell is the last of its frame and every output stays ready; a slot whose
    /// pick would end a frame gives its draws back and is left to `step`.
    /// Returns the slots run (0: not in this regime).
    fn jump_random(&mut self, max_slots: u64, out: &mut OutBuffers<'_>) -> u64 {
        let Some(after) = self.sched.grants_random() else { return 0 };
        let Some(outs) = self.single_ready_requests(*out.ready) else { return 0 };
        if outs.count_ones() == 1 && self.wanting.count_ones() <= 2 {
            return self.jump_random_few(outs.trailing_zeros() as usize, after, max_slots, out);
        }
        let mut k = max_slots;
        let mut cols = [0u64; 64];
        for j in members(outs) {
            k = k.min(out.room_cells(j));
            cols[j] = self.requesters(outs, j);
        }
        let pairs = outs.count_ones() as u64;
        // Per input: cells its head frame has left, and cells it sent in these slots.
        let (mut left, mut sent) = ([0u32; 64], [0u32; 64]);
        for i in members(self.wanting) {
            let j = self.wants[i].trailing_zeros() as usize;
            left[i] = self.queues[self.qi(i, j)].front().expect("a wanted queue holds a frame").cells_left;
        }
        let mut picked = [0u8; 64];
        // A local copy of the stream (kept in registers), put back after.
        let mut rng = self.sched.rng_mut().clone();
        let mut done = 0u64;
        'slots: while done < k {
            let before = rng.clone();
            for j in members(outs) {
                let i = random_pick(cols[j], &mut rng);
                if left[i] < 2 {
                    rng = before;
                    break 'slots;
                }
                picked[j] = i as u8;
            }
            rng.skip(after * pairs);
            for j in members(outs) {
                let i = picked[j] as usize;
                left[i] -= 1;
                sent[i] += 1;
            }
            done += 1;
        }
        *self.sched.rng_mut() = rng;
        for i in members(self.wanting) {
            if sent[i] > 0 {
                self.cross_quiet(i, self.wants[i].trailing_zeros() as usize, sent[i], out);
            }
        }
        done
    }

    /// [`Fabric::jump_random`] when one or two wanting inputs request output `j`
    /// (the two-flow bench): the same draws, without per-input tables.
    fn jump_random_few(&mut self, j: usize, after: u64, max_slots: u64, out: &mut OutBuffers<'_>) -> u64 {
        let col = self.wanting;
        let k = max_slots.min(out.room_cells(j));
        let head_left = |f: &Self, i: usize| f.queues[f.qi(i, j)].front().expect("a wanted queue holds a frame").cells_left;
        let (a, b) = (col.trailing_zeros() as usize, 63 - col.leading_zeros() as usize);
        if a == b {
            // One candidate: each slot draws its pick and accept and moves a cell.
            let done = k.min(head_left(self, a) as u64 - 1);
            self.sched.skip_draws(done * (1 + after));
            if done > 0 {
                self.cross_quiet(a, j, done as u32, out);
            }
            return done;
        }
        // Two requesters a < b: `random_pick` takes b when the draw's top bit is set.
        let (left_a, left_b) = (head_left(self, a), head_left(self, b));
        let (mut la, mut lb) = (left_a, left_b);
        let mut rng = self.sched.rng_mut().clone();
        let mut done = 0u64;
        while done < k {
            let before = rng.clone();
            let take_b = rng.next_u64() >> 63 == 1;
            if (if take_b { lb } else { la }) < 2 {
                rng = before; // the slot ends a frame: `step` runs it
                break;
            }
            rng.skip(after);
            if take_b {
                lb -= 1;
            } else {
                la -= 1;
            }
            done += 1;
        }
        *self.sched.rng_mut() = rng;
        for (i, sent) in [(a, left_a - la), (b, left_b - lb)] {
            if sent > 0 {
                self.cross_quiet(i, j, sent, out);
            }
        }
        done
    }

    /// The outputs requested, if every wanting input requests a single output
    /// and that output is in `ready` (the regime of the jumps).
    fn single_ready_requests(&self, ready: u64) -> Option<u64> {
        let mut outs = 0u64;
        for i in members(self.wanting) {
            let w = self.wants[i];
            if w.count_ones() != 1 || w & ready == 0 {
                return None;
            }
            outs |= w;
        }
        Some(outs)
    }

    /// In the jumps' regime (`outs` from [`Fabric::single_ready_requests`]):
    /// the wanting inputs whose only request is output `j` (all of them when
    /// `j` is the only output requested).
    fn requesters(&self, outs: u64, j: usize) -> u64 {
        if outs == 1 << j {
            return self.wanting;
        }
        members(self.wanting).filter(|&i| self.wants[i] == 1 << j).fold(0u64, |m, i| m | 1 << i)
    }

    /// Packet mode: while every connection is held and no free input can be
    /// matched, each held pair whose output takes cells moves one per slot.
    fn quiet_held(&mut self, max_slots: u64, out: &mut OutBuffers<'_>) -> u64 {
        let mut held_outs = 0u64;
        let mut least = u64::MAX;
        let mut moving = 0u64;
        for i in members(self.held) {
            let j = self.hold[i].0 as usize;
            held_outs |= 1 << j;
            if *out.ready & (1 << j) != 0 {
                moving |= 1 << i;
                let q = self.qi(i, j);
                least = least.min(self.queues[q].front().expect("a held queue holds a frame").cells_left as u64);
                least = least.min(out.room_cells(j));
            }
        }
        // A free input with a ready output nobody holds would be scheduled.
        let blocked = members(self.wanting & !self.held).all(|i| self.wants[i] & *out.ready & !held_outs == 0);
        if moving == 0 || !blocked || least < 2 {
            return 0;
        }
        let k = (least - 1).min(max_slots);
        // `step` still calls the scheduler when a free input and a free output
        // exist, and it matches nothing.
        let out_free = *out.ready & !held_outs;
        if self.wanting & !self.held != 0 && out_free != 0 {
            self.sched.repeat_forced(k, 0);
        }
        for i in members(moving) {
            self.cross_quiet(i, self.hold[i].0 as usize, k as u32, out);
        }
        self.slots += k;
        k
    }

    /// `cells` cells of queue (i, j)'s head frame cross, none its last one;
    /// returns the cells its head frame has left.
    #[inline]
    fn cross_quiet(&mut self, i: usize, j: usize, cells: u32, out: &mut OutBuffers<'_>) -> u32 {
        let q = self.qi(i, j);
        let per_cell = self.pool.per_cell();
        let e = self.queues[q].front_mut().expect("a matched queue holds a frame");
        debug_assert!(e.cells_left > cells, "a quiet slot never moves a frame's last cell");
        e.cells_left -= cells;
        // Cell mode frees memory per cell (never the remainder before the last
        // cell: a frame's charge covers its cells); packet mode at the last cell.
        let free = if self.mode == FabricMode::Cell { (per_cell * cells as u64).min(e.charge_left) } else { 0 };
        e.charge_left -= free;
        let left = e.cells_left;
        self.pool.release(i, free);
        self.cells_crossed += cells as u64;
        out.take_cells(j, cells as u64);
        left
    }
}
