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
use super::sched::{members, Scheduler, UNMATCHED};

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
