//! The switch core (spec 05 §2.2–2.4), sans-IO: the driver hands it each frame
//! at the end of its reception and asks it to run up to a time before which no
//! further frame can become eligible; it answers with the frames that start on
//! its outputs, the frames it dropped, and when it next needs to run.
//!
//! Inside, one loop visits in time order: lines that finish a frame (memory is
//! released when the last bit has left, §2.2 "Memory release"), frames that
//! become eligible (store-and-forward + `L_fwd` + jitter, admitted or dropped
//! whole), fabric slots (M2, M3) and lines that start a frame. Everything at
//! one instant happens in that order, so a frame eligible at t sees the memory
//! freed at t and can request in the slot that starts at t (CHOICE).

use std::collections::VecDeque;

use super::config::{MemUnit, Model, SharePolicy, SwitchConfig, VoqPool};
use super::fabric::{Crossed, Fabric, OutBuffers};
use super::memory::MemPool;
use super::output::{Output, Waiting};
use super::sched::{members, Scheduler};
use crate::engine::rng::Stream;
use crate::engine::time::{SimTime, Span, PS_PER_S};

/// What the core needs to know of a frame.
pub trait Frame: Copy {
    fn l2_bytes(&self) -> u64;
}

/// Bytes a frame occupies on a line beyond L2: preamble/SFD 8 and gap 12 (spec 05 §2.1).
pub const FRAMING_BYTES: u64 = 20;

/// A frame that starts on an output line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Departure<F> {
    pub out: usize,
    pub input: usize,
    pub start: SimTime,
    /// Serialization time at the port's rate on the switch's clock.
    pub tx: Span,
    pub frame: F,
}

/// A frame refused by admission control.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Refused<F> {
    pub input: usize,
    pub out: usize,
    pub at: SimTime,
    pub frame: F,
}

/// Fabric slots on the switch clock: slot k starts at round(k·τ).
#[derive(Clone, Copy, Debug)]
struct SlotClock {
    tau_ps: f64,
    /// 1/τ, for estimates that `time` corrects.
    per_tau: f64,
}

/// Times from here on (2^62 ps, 53 days) stand for "no bound" to the slot clock.
const FAR_PS: u64 = 1 << 62;

impl SlotClock {
    // Slot numbers and times stay below 2^63, so they convert through i64:
    // one instruction each way, the same values as a u64 conversion.
    #[inline]
    fn time(&self, k: u64) -> SimTime {
        // Rounded to the nearest picosecond (k·τ ≥ 0, so +0.5 and truncation do it).
        SimTime((k as i64 as f64 * self.tau_ps + 0.5) as i64 as u64)
    }

    /// Slots from slot `k` (which starts at `t_k`) on that start before `bound`:
    /// `first_at_or_after(bound) − k`, estimated from the span and corrected.
    #[inline]
    fn slots_before(&self, k: u64, t_k: SimTime, bound: SimTime) -> u64 {
        debug_assert!(bound.0 < FAR_PS && self.time(k) == t_k);
        if bound <= t_k {
            return 0;
        }
        let estimate = k + ((bound.0 - t_k.0) as i64 as f64 * self.per_tau) as i64 as u64;
        self.settle(estimate, bound, k) - k
    }

    /// The first slot at or after `t`, from an estimate `m` and a slot `floor`
    /// known to start before `t` (or 0).
    #[inline]
    fn settle(&self, mut m: u64, t: SimTime, floor: u64) -> u64 {
        while self.time(m) < t {
            m += 1;
        }
        while m > floor && self.time(m - 1) >= t {
            m -= 1;
        }
        m
    }

    #[inline]
    fn first_at_or_after(&self, t: SimTime) -> u64 {
        debug_assert!(t.0 < FAR_PS, "a slot time below 2^62 ps");
        let x = t.0 as i64 as f64 / self.tau_ps;
        let k = x as i64 as u64; // x ≥ 0: truncation, then the ceiling
        self.settle(if (k as i64 as f64) < x { k + 1 } else { k }, t, 0)
    }
}

/// M2/M3: the fabric, its clock and the output buffers it fills.
struct FabricSide<F> {
    fabric: Fabric<F>,
    clock: SlotClock,
    /// The first slot not run yet, and its start time.
    next_slot: u64,
    next_slot_t: SimTime,
    cell_bytes: u64,
    /// Output-buffer bytes per output: cells being reassembled, frames waiting
    /// and the frame on the line.
    out_bytes: Vec<u64>,
    /// Outputs whose buffer takes another cell (`B_out` backpressure, CHOICE:
    /// the scheduler does not serve a full output, so outputs never drop).
    out_ready: u64,
    out_limit: u64,
    /// Highest output-buffer fill.
    pub out_max_bytes: u64,
}

/// Counters of one switch port.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PortCounts {
    /// Frames received on this input.
    pub received: u64,
    /// Frames of this input refused by admission.
    pub dropped: u64,
    /// Frames this output sent.
    pub sent: u64,
}

pub struct SwitchCore<F> {
    n: usize,
    lookup: Span,
    jitter_ps: u64,
    jitter_rng: Stream,
    /// Per input: frames waiting for their eligibility time.
    ingress: Vec<VecDeque<(SimTime, u8, F)>>,
    last_eligible: Vec<SimTime>,
    ingress_busy: u64,
    /// M1, M4: the memory behind the output queues.
    direct: Option<MemPool>,
    sub_queues: bool,
    fab: Option<FabricSide<F>>,
    outputs: Vec<Output<F>>,
    out_busy: u64,
    /// Per output: picoseconds per line byte on the switch clock.
    ps_per_byte: Vec<f64>,
    now: SimTime,
    /// Everything before this time has been simulated.
    done_until: SimTime,
    departures: VecDeque<Departure<F>>,
    refused: Vec<Refused<F>>,
    pub counts: Vec<PortCounts>,
}

impl<F: Frame> SwitchCore<F> {
    /// A switch with `cfg.ports` ports at `rates_bps` (one per port); the
    /// fabric runs at `s` times the fastest port. `rng` drives jitter and the
    /// random schedulers.
    pub fn new(cfg: &SwitchConfig, rates_bps: &[u64], seed: u64, name: &str) -> SwitchCore<F> {
        let n = cfg.ports as usize;
        assert_eq!(rates_bps.len(), n, "one rate per port");
        assert!(cfg.check().is_ok(), "checked configuration");
        // δ_sw scales the egress serialization rate and the slot clock (spec 05 §2.4).
        let clock = 1.0 + cfg.clock_ppm * 1e-6;
        let ps_per_byte = rates_bps.iter().map(|&r| 8.0 * PS_PER_S as f64 / (r as f64 * clock)).collect();
        let line_bps = *rates_bps.iter().max().expect("ports") as f64;
        let pool = |queues: usize, policy: SharePolicy, total: u64, limit: u64| {
            MemPool::new(cfg.mem_unit, cfg.cell_bytes, policy, total, limit, cfg.dt_alpha, queues)
        };
        let (direct, fab) = match cfg.model {
            Model::Oq => (Some(pool(n, cfg.policy, cfg.total_bytes, cfg.queue_limit_bytes)), None),
            // spec 05 §2.2 M4: a static split, B_sub per sub-queue within B_port per
            // output (`SP`, the default); with `CS` or `DT` the shared-pool variant
            // (issue 39 item 6; spec 05 §5 "the split among ports is unknown"): every
            // sub-queue draws on the one B_total.
            Model::RrSimple => {
                let p = match cfg.policy {
                    SharePolicy::Sp => pool(n * n, SharePolicy::Sp, cfg.total_bytes, cfg.queue_limit_bytes).with_groups(n, cfg.port_limit_bytes()),
                    shared => pool(n * n, shared, cfg.total_bytes, cfg.queue_limit_bytes),
                };
                (Some(p), None)
            }
            Model::IqFifo | Model::Voq => {
                let voq = cfg.model == Model::Voq;
                let input_pool = match (voq, cfg.voq_pool) {
                    (true, VoqPool::Global) => pool(n, SharePolicy::Cs, cfg.total_bytes, cfg.total_bytes),
                    _ => pool(n, SharePolicy::Sp, cfg.total_bytes, cfg.queue_limit_bytes),
                };
                let rng = Stream::derive(seed, &format!("{name}/sched"));
                let sched = if voq {
                    Scheduler::voq(n, cfg.sched, cfg.iterations, rng)
                } else {
                    Scheduler::fifo(n, cfg.iq_select, rng)
                };
                let fabric = Fabric::new(n, voq, input_pool, cfg.cell_bytes, cfg.fabric_mode, cfg.quantum, sched);
                // Slot τ = 8·C/(s·R_line) on the switch clock (spec 05 §2.3).
                let tau_ps = 8.0 * cfg.cell_bytes as f64 * PS_PER_S as f64 / (cfg.speedup * line_bps * clock);
                let side = FabricSide {
                    fabric,
                    clock: SlotClock { tau_ps, per_tau: 1.0 / tau_ps },
                    next_slot: 0,
                    next_slot_t: SimTime::ZERO,
                    cell_bytes: cfg.cell_bytes as u64,
                    out_bytes: vec![0; n],
                    out_ready: if n == 64 { !0 } else { (1u64 << n) - 1 },
                    out_limit: cfg.out_limit_bytes,
                    out_max_bytes: 0,
                };
                (None, Some(side))
            }
        };
        debug_assert!(cfg.mem_unit == MemUnit::Byte || cfg.cell_bytes > 0);
        SwitchCore {
            n,
            lookup: cfg.lookup,
            jitter_ps: cfg.jitter.ps(),
            jitter_rng: Stream::derive(seed, &format!("{name}/jitter")),
            ingress: (0..n).map(|_| VecDeque::new()).collect(),
            last_eligible: vec![SimTime::ZERO; n],
            ingress_busy: 0,
            direct,
            sub_queues: cfg.model == Model::RrSimple,
            fab,
            outputs: (0..n).map(|_| Output::new((cfg.model == Model::RrSimple).then_some(n))).collect(),
            out_busy: 0,
            ps_per_byte,
            now: SimTime::ZERO,
            done_until: SimTime::ZERO,
            departures: VecDeque::new(),
            refused: Vec::new(),
            counts: vec![PortCounts::default(); n],
        }
    }

    /// The last bit of `frame`, bound for output `out`, arrived on input `input`
    /// at `now`. It becomes eligible after `L_fwd` plus U[0, J], never before an
    /// earlier frame of the same input (spec 05 §2.2 "Forwarding jitter").
    pub fn receive(&mut self, now: SimTime, input: usize, out: usize, frame: F) {
        debug_assert!(input < self.n && out < self.n);
        let jitter = if self.jitter_ps > 0 { self.jitter_rng.next_u64() % (self.jitter_ps + 1) } else { 0 };
        let t = (now + self.lookup + Span(jitter)).max(self.last_eligible[input]);
        assert!(t >= self.done_until, "a frame eligible at {t:?} reached a switch already run to {:?}", self.done_until);
        self.last_eligible[input] = t;
        self.ingress[input].push_back((t, out as u8, frame));
        self.ingress_busy |= 1 << input;
        self.counts[input].received += 1;
    }

    /// Simulate everything before `until`; no frame may later become eligible
    /// before it.
    pub fn advance(&mut self, until: SimTime) {
        loop {
            let (t_out, t_in, t_slot) = self.next_times();
            let t = t_out.min(t_in).min(t_slot);
            if t >= until {
                break;
            }
            debug_assert!(t >= self.now, "switch time runs forward");
            self.now = t;
            self.finish_lines(t);
            self.admit_due(t);
            if t_slot == t {
                // Slots run back to back until an output has an event (a frame
                // that completes bounds them by its output's next event, as it
                // can start a line at the slot's end): nothing else changes.
                // Slots that complete no frame (quiet) run as batches, with the
                // same result; the others one by one. Frames that become
                // eligible before then are admitted between the slots, as the
                // outer loop would (no output event comes first; a line never
                // starts at an admission, whose frame is still at its input).
                let mut bound = t_out.min(until);
                let mut t_in = self.next_ingress_time();
                self.align_slot(t);
                loop {
                    if let Some(last) = self.run_quiet(bound.min(t_in)) {
                        self.now = last;
                    } else {
                        let outs = self.run_slot();
                        if let Some(t_o) = members(outs).map(|j| self.outputs[j].next_time()).min() {
                            bound = bound.min(t_o);
                        }
                    }
                    let mut next = self.next_slot_time();
                    while t_in < bound && t_in <= next {
                        self.now = t_in;
                        self.admit_due(t_in);
                        t_in = self.next_ingress_time();
                        next = self.next_slot_time();
                    }
                    if next >= bound {
                        break;
                    }
                    self.now = next;
                    self.align_slot(next);
                }
            }
            self.start_lines(self.now);
        }
        self.done_until = self.done_until.max(until);
    }

    /// The earliest time the core has work, from its own state (frames it holds).
    pub fn next_time(&self) -> SimTime {
        let (t_out, t_in, t_slot) = self.next_times();
        t_out.min(t_in).min(t_slot)
    }

    /// When the outputs, the ingress pipelines and the fabric next have work.
    #[inline]
    fn next_times(&self) -> (SimTime, SimTime, SimTime) {
        let t_out = members(self.out_busy).map(|j| self.outputs[j].next_time()).min().unwrap_or(SimTime::NEVER);
        (t_out, self.next_ingress_time(), self.next_slot_time())
    }

    #[inline]
    fn next_ingress_time(&self) -> SimTime {
        members(self.ingress_busy).map(|i| self.ingress[i][0].0).min().unwrap_or(SimTime::NEVER)
    }

    #[inline]
    fn next_slot_time(&self) -> SimTime {
        match &self.fab {
            Some(f) if f.fabric.has_work(f.out_ready) => {
                if f.next_slot_t >= self.now {
                    f.next_slot_t
                } else {
                    // The fabric idled: the first slot at or after now.
                    f.clock.time(f.next_slot.max(f.clock.first_at_or_after(self.now)))
                }
            }
            _ => SimTime::NEVER,
        }
    }

    /// Lines whose frame's last bit leaves at `t` give its memory back.
    fn finish_lines(&mut self, t: SimTime) {
        for j in members(self.out_busy) {
            let o = &mut self.outputs[j];
            if o.busy_until != t {
                continue;
            }
            let Some((input, release)) = o.on_line.take() else { continue };
            if let Some(pool) = self.direct.as_mut() {
                let q = if self.sub_queues { j * self.n + input as usize } else { j };
                pool.release(q, release);
            }
            if let Some(f) = self.fab.as_mut() {
                f.out_bytes[j] -= release;
                if f.out_bytes[j] + f.cell_bytes <= f.out_limit {
                    f.out_ready |= 1 << j;
                }
            }
            if o.frames == 0 {
                self.out_busy &= !(1 << j);
            }
        }
    }

    /// Frames eligible at `t` enter the memory or are refused whole.
    fn admit_due(&mut self, t: SimTime) {
        for i in members(self.ingress_busy) {
            while let Some(&(te, out, frame)) = self.ingress[i].front().filter(|e| e.0 <= t) {
                debug_assert_eq!(te, t, "eligibility times are visited in order");
                self.ingress[i].pop_front();
                self.admit(t, i, out as usize, frame);
            }
            if self.ingress[i].is_empty() {
                self.ingress_busy &= !(1 << i);
            }
        }
    }

    fn admit(&mut self, t: SimTime, i: usize, j: usize, frame: F) {
        let l2 = frame.l2_bytes();
        let ok = if let Some(pool) = self.direct.as_mut() {
            let q = if self.sub_queues { j * self.n + i } else { j };
            let charge = pool.charge(l2);
            let ok = pool.try_admit(q, charge);
            if ok {
                self.outputs[j].push(Waiting { frame, ready: t, input: i as u8, release: charge, l2_bytes: l2 as u32 });
                self.out_busy |= 1 << j;
            }
            ok
        } else {
            let f = self.fab.as_mut().expect("a switch has a memory");
            f.fabric.admit(i, j, frame, l2).is_ok()
        };
        if !ok {
            self.counts[i].dropped += 1;
            self.refused.push(Refused { input: i, out: j, at: t, frame });
        }
    }

    /// The fabric's next slot (made current by `align_slot`): cells cross,
    /// completed frames wait at their output from the end of the slot.
    /// Returns the outputs that received a completed frame.
    fn run_slot(&mut self) -> u64 {
        let f = self.fab.as_mut().expect("fabric");
        let FabricSide { fabric, clock, next_slot, next_slot_t, cell_bytes, out_bytes, out_ready, out_limit, out_max_bytes } = f;
        let k = *next_slot;
        debug_assert_eq!(clock.time(k), *next_slot_t);
        let slot_end = clock.time(k + 1);
        let outputs = &mut self.outputs;
        let out_busy = &mut self.out_busy;
        let mut completed = 0u64;
        let mut out = OutBuffers { bytes: out_bytes, ready: out_ready, limit: *out_limit, cell_bytes: *cell_bytes, max_bytes: out_max_bytes };
        fabric.step(*out.ready, &mut |c| {
            let j = match c {
                Crossed::Cell { out } => out,
                Crossed::Last { out, input, frame, cells } => {
                    completed |= 1 << out;
                    let bytes = cells as u64 * *cell_bytes;
                    outputs[out].push(Waiting { frame, ready: slot_end, input: input as u8, release: bytes, l2_bytes: frame.l2_bytes() as u32 });
                    *out_busy |= 1 << out;
                    out
                }
            };
            // Cells of a frame being reassembled are counted as they arrive;
            // the frame's bytes are returned when it has left the line.
            out.take_cells(j, 1);
        });
        *next_slot = k + 1;
        *next_slot_t = slot_end;
        completed
    }

    /// Make the slot that starts at `t` the fabric's next one (after an idle spell).
    fn align_slot(&mut self, t: SimTime) {
        let f = self.fab.as_mut().expect("fabric");
        if f.next_slot_t != t {
            f.next_slot = f.clock.first_at_or_after(t);
            f.next_slot_t = t;
            debug_assert_eq!(f.clock.time(f.next_slot), t);
        }
    }

    /// Quiet slots (no frame completes, [`Fabric::run_quiet`]) from the next
    /// slot on, all starting before `bound`; returns the start of the last one run.
    fn run_quiet(&mut self, bound: SimTime) -> Option<SimTime> {
        let f = self.fab.as_mut().expect("fabric");
        let max_slots = if bound.0 >= FAR_PS { u64::MAX } else { f.clock.slots_before(f.next_slot, f.next_slot_t, bound) };
        let mut out = OutBuffers { bytes: &mut f.out_bytes, ready: &mut f.out_ready, limit: f.out_limit, cell_bytes: f.cell_bytes, max_bytes: &mut f.out_max_bytes };
        let ran = f.fabric.run_quiet(max_slots, &mut out);
        if ran == 0 {
            return None;
        }
        f.next_slot += ran;
        f.next_slot_t = f.clock.time(f.next_slot);
        Some(f.clock.time(f.next_slot - 1))
    }

    /// Idle lines start their next ready frame.
    fn start_lines(&mut self, t: SimTime) {
        for j in members(self.out_busy) {
            let o = &mut self.outputs[j];
            let Some(w) = o.take_next(t) else { continue };
            let tx = Span(((w.l2_bytes as u64 + FRAMING_BYTES) as f64 * self.ps_per_byte[j]).round() as u64);
            o.busy_until = t + tx;
            o.on_line = Some((w.input, w.release));
            self.counts[j].sent += 1;
            self.departures.push_back(Departure { out: j, input: w.input as usize, start: t, tx, frame: w.frame });
        }
    }

    /// The next frame that starts on a line by `now`, in start order.
    pub fn pop_departure(&mut self, now: SimTime) -> Option<Departure<F>> {
        if self.departures.front().is_some_and(|d| d.start <= now) { self.departures.pop_front() } else { None }
    }

    /// When the next computed departure starts, if any.
    pub fn next_departure(&self) -> Option<SimTime> {
        self.departures.front().map(|d| d.start)
    }

    /// Run quiet fabric slots as batches (default) or each through the
    /// scheduler like any other slot (to test and to measure the batching).
    pub fn set_quiet_slots(&mut self, on: bool) {
        if let Some(f) = self.fab.as_mut() {
            f.fabric.quiet = on;
        }
    }

    /// Frames refused since the last call.
    pub fn take_refused(&mut self) -> std::vec::Drain<'_, Refused<F>> {
        self.refused.drain(..)
    }

    /// Frames inside the switch (waiting for eligibility, in memory, or
    /// computed to depart but not yet handed out).
    pub fn frames_held(&self) -> u64 {
        let ingress: usize = self.ingress.iter().map(|q| q.len()).sum();
        let out: usize = self.outputs.iter().map(|o| o.frames).sum();
        let fab = self.fab.as_ref().map_or(0, |f| f.fabric.frames_held);
        ingress as u64 + out as u64 + fab + self.departures.len() as u64
    }

    /// Highest memory use in bytes: the shared/partitioned memory (M1, M4) or
    /// the input memory (M2, M3).
    pub fn memory_max_bytes(&self) -> u64 {
        match (&self.direct, &self.fab) {
            (Some(p), _) => p.max_used * p.unit_bytes(),
            (None, Some(f)) => f.fabric.pool.max_used * f.fabric.pool.unit_bytes(),
            _ => 0,
        }
    }

    /// M2/M3: highest output-buffer fill in bytes.
    pub fn output_buffer_max_bytes(&self) -> u64 {
        self.fab.as_ref().map_or(0, |f| f.out_max_bytes)
    }

    /// Fabric slots run and cells crossed (M2, M3).
    pub fn fabric_counts(&self) -> (u64, u64) {
        self.fab.as_ref().map_or((0, 0), |f| (f.fabric.slots, f.fabric.cells_crossed))
    }
}
