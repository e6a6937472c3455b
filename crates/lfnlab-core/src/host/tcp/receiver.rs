//! The receive half of a TCP endpoint (spec 06 §2.3 receiver rules, §3).
//! Sans-IO: it takes segments at `now` and answers whether to ACK at once,
//! later (delayed-ACK deadline) or not at all; `fill_ack` writes the ACK fields.

use super::autotune::{RcvAutotune, RcvSpace};
use super::config::{AckPolicy, Delack, RwndPolicy, TcpConfig, TruesizeModel, WindowRounding};
use std::collections::VecDeque;

use super::ranges::RangeSet;
use crate::engine::time::{SimTime, Span};
use crate::net::packet::{MAX_SACK_BLOCKS, TcpHeader};

/// Quick-ACK budget of the `linux_like` policy (spec 02 §2.6.2 (a)).
const LINUX_LIKE_QUICKACKS: u32 = 16;

/// What the receiver wants after a segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckNeed {
    Now,
    /// A delayed ACK is (or stays) scheduled.
    Later,
    None,
}

pub struct Receiver {
    policy: AckPolicy,
    delack: Delack,
    delack_timeout: Span,
    sack: bool,
    timestamps: bool,
    truesize: TruesizeModel,
    /// How a scaled window meets the 2^wscale unit (`TcpConfig::window_rounding`).
    rounding: WindowRounding,
    /// Window fraction φ (spec 06 §2.3).
    phi: f64,
    pub b_rcv: u64,
    /// Receive window scale s_w.
    pub wscale: u8,
    /// Effective MSS for quick-ACK and delayed-ACK counting.
    pub mss: u32,
    pub rcv_nxt: u64,
    ooo: RangeSet,
    /// M_used: charges of held segments (spec 06 §2.3 rule 1).
    pub m_used: u64,
    /// Advertised right edge; never moves left (rule 2).
    right_edge: u64,
    pub bytes_read: u64,
    /// An application reader is modelled (spec 04 §2.7 rule 4): in-order data
    /// waits, charged to M_used, until `read`; otherwise it is read at once
    /// (spec 06 §2.3 rule 6).
    reader: bool,
    /// Unread in-order data: (end sequence, charge) per held segment.
    unread: VecDeque<(u64, u64)>,
    /// Bytes received in order since the last ACK.
    unacked_bytes: u64,
    pub delack_deadline: Option<SimTime>,
    /// Quick-ACK budget q (spec 06 §3 `linux_quickack`).
    quick: u32,
    /// `linux_quickack` with `quickack_on_window_growth`: a segment that raises
    /// rcv_ssthresh sets one quick ACK (Linux `tcp_grow_window`).
    quickack_on_growth: bool,
    /// window_clamp of a locked buffer whose rcv_ssthresh is tracked (the full
    /// space φ·B_rcv, Linux `tcp_init_buffer_space`); None otherwise.
    locked_clamp: Option<u64>,
    /// Adaptive ato (spec 06 §3).
    ato: Span,
    last_arrival: Option<SimTime>,
    seen_data: bool,
    /// TSval to echo (spec 06 §3 rule 3).
    ts_recent: SimTime,
    /// True when no in-sequence segment arrived since the last ACK.
    ts_take_next: bool,
    /// Positions inside recently reported SACK blocks, most recent first.
    sack_keys: [u64; MAX_SACK_BLOCKS],
    n_keys: usize,
    dsack: Option<(u64, u64)>,
    pub rcvbuf_drops: u64,
    pub dsacks_sent: u64,
    /// Gradual window opening, when enabled (spec 02 §2.4 rule 4 `linux_like`),
    /// and `rcv_ssthresh` of an autotuned buffer.
    growth: Option<WindowGrowth>,
    /// Autotuning of an unlocked buffer (`host::tcp::autotune`); None when locked.
    pub autotune: Option<RcvSpace>,
    /// The buffer a full in-order segment cost (its charge), for DRS's rcvmem.
    full_segment_charge: u64,
}

/// Linux-style gradual opening of the receive window: `rcv_ssthresh` starts
/// at 4·MSS and grows by 2·MSS per in-order data segment (Linux
/// `tcp_grow_window` for segments whose buffer charge fits), never beyond the
/// buffer; a Quick-Start approval (spec 02 §2.4 rule 4) lifts it at once and
/// growth continues from there. The free buffer bounds what is advertised.
#[derive(Clone, Copy, Debug)]
struct WindowGrowth {
    rcv_ssthresh: u64,
}

/// Initial window of the gradual opening, segments (spec 02 §2.4 rule 4).
pub const GRADUAL_INITIAL_SEGMENTS: u64 = 4;

impl Receiver {
    pub fn new(cfg: &TcpConfig, window_scale_ok: bool) -> Receiver {
        let s = cfg.adv_win_scale;
        let phi = match cfg.rwnd_policy {
            RwndPolicy::FullBuffer => 1.0,
            RwndPolicy::LinuxFraction if s >= 1 => 1.0 - 0.5f64.powi(s),
            RwndPolicy::LinuxFraction => 2f64.powi(s),
        };
        // An unlocked buffer starts at tcp_rmem[1] and may grow to `rcvbuf`
        // (host::tcp::autotune); its window scale covers what it may grow to
        // (2.6.20 / 6.8 tcp_select_initial_window take it from tcp_rmem[2]),
        // except in 2.4.20, whose buffer never grows: its scale covers the
        // buffer at the SYN (`tcp_full_space`).
        let (b_rcv, autotune, ws_for) = if cfg.rcvbuf_lock {
            (cfg.rcvbuf_bytes, None, cfg.rcvbuf_bytes)
        } else {
            let start = cfg.rmem_default_bytes.min(cfg.rcvbuf_bytes);
            let ws_for = if cfg.rcv_autotune == RcvAutotune::Off { start } else { cfg.rcvbuf_bytes };
            (start, Some(RcvSpace::new(cfg.rcv_autotune, cfg.rcvbuf_bytes)), ws_for)
        };
        // Rule 3: smallest s_w in 0…14 with 65535·2^s_w ≥ φ·B_rcv.
        let want = phi * ws_for as f64;
        let wscale = if window_scale_ok { (0..=14u8).find(|&k| 65535.0 * (1u64 << k) as f64 >= want).unwrap_or(14) } else { 0 };
        Receiver {
            policy: cfg.ack_policy,
            delack: cfg.delack,
            delack_timeout: cfg.delack_timeout,
            sack: cfg.sack,
            timestamps: cfg.timestamps,
            truesize: cfg.truesize_model,
            rounding: cfg.window_rounding,
            phi,
            b_rcv,
            wscale,
            mss: 536,
            rcv_nxt: 0,
            ooo: RangeSet::new(),
            m_used: 0,
            right_edge: 0,
            bytes_read: 0,
            reader: false,
            unread: VecDeque::new(),
            unacked_bytes: 0,
            delack_deadline: None,
            quick: 0,
            quickack_on_growth: cfg.quickack_on_window_growth && cfg.ack_policy == AckPolicy::LinuxQuickack,
            locked_clamp: None,
            ato: Span::from_ms(40),
            last_arrival: None,
            seen_data: false,
            ts_recent: SimTime::ZERO,
            ts_take_next: true,
            sack_keys: [0; MAX_SACK_BLOCKS],
            n_keys: 0,
            dsack: None,
            rcvbuf_drops: 0,
            dsacks_sent: 0,
            growth: None,
            autotune,
            full_segment_charge: 0,
        }
    }

    /// An autotuned buffer's first window, before the SYN (Linux
    /// `tcp_select_initial_window`): the full space rounded down to `mss`, at most
    /// 65535 in 6.x (`U16_MAX`) and 32767 in 2.x (`MAX_TCP_WINDOW`: 2.4.20
    /// include/net/tcp.h, 2.6.12.1 net/ipv4/tcp_output.c:180). In 2.x, when `mss`
    /// exceeds the scale unit 2^rcv_wscale, also at most 4·mss (3 above 1460 B, 2 above
    /// 4380 B: RFC 1414's `init_cwnd`, tcp_output.c:197); a larger unit leaves the
    /// 32767. `rcv_ssthresh` starts there and grows by 2·advmss per in-order segment
    /// up to `window_clamp` (`tcp_grow_window`).
    /// A locked buffer gets the same first window and growth, up to its full
    /// space, when `quickack_on_window_growth` needs rcv_ssthresh (Linux computes
    /// it for every socket: `tcp_select_initial_window`, `tcp_init_buffer_space`).
    pub fn enable_autotuning(&mut self, rule: RcvAutotune, mss: u32) {
        let full = (self.phi * self.b_rcv as f64) as u64;
        if self.autotune.is_none() {
            if !self.quickack_on_growth {
                return;
            }
            self.locked_clamp = Some(full);
        }
        let mss = mss.max(1) as u64;
        let space = full / mss * mss;
        let wnd = if rule == RcvAutotune::Linux6 {
            space.min(65535)
        } else {
            let wnd = space.min(32767);
            if mss > 1u64 << self.wscale {
                let init_cwnd = if mss > 3 * 1460 { 2 } else if mss > 1460 { 3 } else { 4 };
                wnd.min(init_cwnd * mss)
            } else {
                wnd
            }
        };
        self.growth = Some(WindowGrowth { rcv_ssthresh: wnd });
    }

    /// The connection is established (`tcp_init_buffer_space`): window_clamp
    /// = full space less one segment, rcv_ssthresh within it, DRS starts.
    pub fn establish_autotuning(&mut self, now: SimTime) {
        let advmss = self.mss.max(1) as u64;
        let full = (self.phi * self.b_rcv as f64) as u64;
        let bytes_read = self.bytes_read;
        let (Some(a), Some(g)) = (&mut self.autotune, &mut self.growth) else { return };
        a.establish(now, full, g.rcv_ssthresh, advmss, bytes_read);
        g.rcv_ssthresh = g.rcv_ssthresh.min(a.window_clamp);
    }

    /// Dynamic right-sizing after the application read (`tcp_rcv_space_adjust`).
    fn space_adjust(&mut self, now: SimTime) {
        if let Some(a) = &mut self.autotune {
            let advmss = self.mss.max(1) as u64;
            a.adjust(now, self.bytes_read, advmss, self.full_segment_charge.max(advmss), self.phi, &mut self.b_rcv);
        }
    }

    /// The application reader's read at `now` (after [`read`](Self::read)).
    pub fn after_read(&mut self, now: SimTime) {
        self.space_adjust(now);
    }

    /// Open the window gradually from 4·`mss` (spec 02 §2.4 rule 4 `linux_like`);
    /// `mss` is the endpoint's own segment size, known before the handshake.
    pub fn enable_gradual_opening(&mut self, mss: u32) {
        self.growth = Some(WindowGrowth { rcv_ssthresh: GRADUAL_INITIAL_SEGMENTS * mss as u64 });
    }

    /// An application reader takes the data (spec 04 §2.7 rule 4).
    pub fn enable_reader(&mut self) {
        self.reader = true;
    }

    /// In-order bytes the reader has not read yet.
    pub fn readable(&self) -> u64 {
        self.rcv_nxt - self.bytes_read
    }

    /// The reader took `bytes`: a held segment's charge is released once it is
    /// wholly read (spec 06 §2.3 rule 1).
    pub fn read(&mut self, bytes: u64) {
        debug_assert!(self.reader && bytes <= self.readable());
        self.bytes_read += bytes;
        while let Some(&(end, charge)) = self.unread.front() {
            if end > self.bytes_read {
                break;
            }
            self.unread.pop_front();
            self.m_used -= charge;
        }
    }

    /// Raise the gradual window to at least `bytes` (a Quick-Start approval,
    /// spec 02 §2.4 rule 4); the free buffer still bounds what is advertised.
    pub fn raise_window_floor(&mut self, bytes: u64) {
        let cap = self.growth_cap();
        if let Some(g) = &mut self.growth {
            g.rcv_ssthresh = g.rcv_ssthresh.max(bytes.min(cap));
        }
    }

    /// What rcv_ssthresh may grow to: the autotuned window_clamp, else the buffer.
    fn growth_cap(&self) -> u64 {
        if let Some(clamp) = self.locked_clamp {
            return clamp;
        }
        self.autotune.as_ref().map_or(self.b_rcv, |a| a.window_clamp.min(self.b_rcv))
    }

    /// The gradual window's current cap (`rcv_ssthresh`), if enabled.
    pub fn window_cap(&self) -> Option<u64> {
        self.growth.map(|g| g.rcv_ssthresh)
    }

    /// Charge for holding `payload` bytes in `segs` segments (spec 06 §2.3 `truesize_model`).
    fn charge(&self, payload: u64, segs: u64, l2_per_seg: u64) -> u64 {
        match self.truesize {
            TruesizeModel::Payload => payload,
            TruesizeModel::Pow2 => segs * ((l2_per_seg + 2).next_power_of_two() + 256),
        }
    }

    /// Check #2 of Linux 2.x `tcp_grow_window` for a segment of `len` bytes charged
    /// `charge` (its truesize): grow if φ·truesize ≤ len; otherwise
    /// `__tcp_grow_window` (2.6.12.1 net/ipv4/tcp_input.c:242) halves φ·truesize/2
    /// and the limit φ·B/2 (`tcp_full_space`/2) together while rcv_ssthresh is within
    /// the limit, and grows once the halved truesize fits in len.
    fn truesize_allows_growth(&self, rcv_ssthresh: u64, charge: u64, len: u64) -> bool {
        let space = |bytes: u64| (self.phi * bytes as f64) as u64;
        if space(charge) <= len {
            return true;
        }
        let (mut truesize, mut window) = (space(charge) / 2, space(self.b_rcv) / 2);
        while rcv_ssthresh <= window {
            if truesize <= len {
                return true;
            }
            truesize >>= 1;
            window >>= 1;
        }
        false
    }

    /// W_adv before the right-edge rule (rule 2), a multiple of the scale unit
    /// 2^wscale (what the 16-bit field can carry).
    fn formula_window(&self) -> u64 {
        let space = self.b_rcv.saturating_sub(self.m_used) as f64 * self.phi;
        let free = self.window_cap().map_or(space, |cap| space.min(cap as f64)) as u64;
        let unit = 1u64 << self.wscale;
        let w = match self.rounding {
            // 2.4.20 tcp_select_window: `new_win >>= tp->rcv_wscale`.
            WindowRounding::Down => free / unit * unit,
            // 2.6.12.1 net/ipv4/tcp_output.c `__tcp_select_window`: a free space
            // (tcp_space) under half the full space and under one MSS gives 0;
            // otherwise the window, capped at rcv_ssthresh, is rounded up so that
            // scaling cannot announce a zero window when 2^wscale > rcv_ssthresh.
            WindowRounding::Up => {
                let full = self.phi * self.b_rcv as f64;
                if space < full / 2.0 && space < self.mss as f64 {
                    0
                } else {
                    free.div_ceil(unit) * unit
                }
            }
        };
        w.min(65535 * unit)
    }

    /// Window to advertise with an ACK of `rcv_nxt`, keeping the right edge.
    pub fn advertised_window(&mut self) -> u64 {
        let w = self.formula_window();
        let edge = (self.rcv_nxt + w).max(self.right_edge);
        self.right_edge = edge;
        edge - self.rcv_nxt
    }

    /// Quick-ACK budget n = ⌊W_adv/(2·MSS)⌋, or 2 if that is 0 (spec 06 §3).
    fn enter_quickack(&mut self) {
        let n = (self.formula_window() / (2 * self.mss as u64)) as u32;
        let n = if n == 0 { 2 } else { n };
        self.quick = self.quick.max(n.min(16));
    }

    fn delack_span(&self) -> Span {
        match (self.policy, self.delack) {
            (AckPolicy::Delayed, Delack::Fixed) => self.delack_timeout,
            _ => self.ato.max(Span::from_ms(40)).min(Span::from_ms(200)),
        }
    }

    /// Adaptive ato update on an arrival (spec 06 §3 `adaptive`).
    fn update_ato(&mut self, now: SimTime, rto_r: Span) {
        if let Some(last) = self.last_arrival {
            let m = now.since(last);
            if m <= Span::from_ms(20) {
                self.ato = Span(self.ato.0 / 2) + Span::from_ms(20);
            } else if m < self.ato {
                self.ato = (Span(self.ato.0 / 2) + m).min(rto_r);
            }
        }
        self.last_arrival = Some(now);
    }

    /// A data segment [seq, seq + len) arrived. `rto_r` is the receiver's RTO.
    pub fn on_data(&mut self, now: SimTime, h: &TcpHeader, l2_bytes: u64, rto_r: Span) -> AckNeed {
        let seq = h.seq;
        let len = h.payload as u64;
        let end = seq + len;
        // Data after more than RTO_r of silence re-enters quick-ACK mode.
        let silent = self.last_arrival.is_some_and(|t| now.since(t) > rto_r);
        if self.delack == Delack::Adaptive || self.policy == AckPolicy::LinuxQuickack {
            self.update_ato(now, rto_r);
        } else {
            self.last_arrival = Some(now);
        }
        if self.policy == AckPolicy::LinuxQuickack && (!self.seen_data || silent) {
            self.enter_quickack();
        }
        if self.policy == AckPolicy::LinuxLike && (!self.seen_data || silent) {
            // spec 02 §2.6.2 (a): budget 16 at the first data segment and after idle > RTO_r.
            self.quick = LINUX_LIKE_QUICKACKS;
        }
        self.seen_data = true;

        // Duplicate: entirely below rcv_nxt, or already held out of order.
        let held = self.ooo.containing(seq).is_some_and(|(_, e)| e >= end);
        if end <= self.rcv_nxt || held {
            if self.sack {
                self.dsack = Some((seq, end));
            }
            if self.policy == AckPolicy::LinuxQuickack {
                self.enter_quickack();
            }
            return AckNeed::Now;
        }
        // Rule 4: a segment whose charge would push M_used above B_rcv is dropped.
        let charge = self.charge(len, 1, l2_bytes);
        if self.m_used + charge > self.b_rcv {
            self.rcvbuf_drops += 1;
            return AckNeed::Now;
        }
        if seq <= self.rcv_nxt {
            // In order (possibly overlapping already-received bytes).
            if self.ts_take_next {
                self.ts_recent = h.ts_val;
                self.ts_take_next = false;
            }
            let fresh = end - self.rcv_nxt;
            let cap = self.growth_cap();
            let fits = !self.quickack_on_growth || self.growth.is_none_or(|g| self.truesize_allows_growth(g.rcv_ssthresh, charge, len));
            let mut grew = false;
            if let Some(g) = self.growth.as_mut().filter(|_| fits) {
                // Linux tcp_grow_window: +2·MSS per in-order data segment (CHOICE without
                // `quickack_on_window_growth`: every segment counts, the buffer charge never
                // stops it; with it, the 2.x truesize test `fits` above).
                let raised = (g.rcv_ssthresh + 2 * self.mss as u64).min(cap);
                grew = raised > g.rcv_ssthresh;
                g.rcv_ssthresh = raised;
            }
            // tcp_grow_window runs for segments of at least 128 B (tcp_event_data_recv)
            // and sets `quick |= 1` when it raised rcv_ssthresh (2.4.20 tcp_input.c:259,
            // 2.6.12.1 :278, 2.6.20 :270, 6.8 :537): this segment is ACKed at once.
            if grew && self.quickack_on_growth && len >= 128 {
                self.quick = self.quick.max(1);
            }
            if len >= self.mss as u64 {
                self.full_segment_charge = charge;
            }
            self.rcv_nxt = end;
            // The receiver's RTT for DRS (tcp_rcv_rtt_measure_ts / tcp_rcv_rtt_measure).
            let (timestamps, wnd) = (self.timestamps, self.right_edge.saturating_sub(self.rcv_nxt));
            if let Some(a) = &mut self.autotune {
                if !timestamps {
                    a.rtt_measure_window(now, self.rcv_nxt, wnd);
                } else if h.ts_ecr > SimTime::ZERO && len >= self.mss as u64 {
                    a.rtt_sample_ts(now.since(h.ts_ecr));
                }
            }
            self.unacked_bytes += fresh;
            if self.reader {
                let held = self.charge(fresh, 1, l2_bytes);
                self.m_used += held;
                self.unread.push_back((end, held));
            } else {
                self.bytes_read += fresh;
            }
            // Pull in out-of-order data that is now in sequence.
            let mut filled = false;
            while let Some((s, e)) = self.ooo.first() {
                if s > self.rcv_nxt {
                    break;
                }
                self.ooo.pop_first();
                let segs = (e - s).div_ceil(self.mss as u64);
                let held = self.charge(e - s, segs, l2_bytes);
                if e > self.rcv_nxt {
                    self.rcv_nxt = e;
                }
                if self.reader {
                    // The held data moves to the in-order queue with its charge.
                    self.unread.push_back((self.rcv_nxt, held));
                } else {
                    self.m_used = self.m_used.saturating_sub(held);
                    self.bytes_read = self.rcv_nxt;
                }
                filled = true;
            }
            if !self.reader {
                // Read at once: DRS runs as on each copy to user (autotune CHOICE).
                self.space_adjust(now);
            }
            if filled {
                // spec 06 §3 rule 1: a segment filling (part of) a hole is ACKed at once.
                return AckNeed::Now;
            }
            self.in_order_need(now)
        } else {
            // Out of order: hold it, ACK at once with SACK (rule 1).
            let mut fresh = 0;
            self.ooo.insert(seq, end, |a, b| fresh += b - a);
            self.m_used += self.charge(fresh, fresh.div_ceil(self.mss as u64).max(1), l2_bytes);
            if self.sack {
                self.remember_block(seq);
            }
            if self.policy == AckPolicy::LinuxQuickack {
                self.enter_quickack();
            }
            AckNeed::Now
        }
    }

    fn in_order_need(&mut self, now: SimTime) -> AckNeed {
        match self.policy {
            AckPolicy::PerSegment => AckNeed::Now,
            AckPolicy::LinuxQuickack if self.quick > 0 => AckNeed::Now,
            // spec 02 §2.6.2 (a) quick-ACK budget, (b) receive-window growth phase.
            AckPolicy::LinuxLike if self.quick > 0 || self.rcv_nxt < self.b_rcv / 2 => AckNeed::Now,
            _ => {
                if self.unacked_bytes >= 2 * self.mss as u64 {
                    AckNeed::Now
                } else {
                    if self.delack_deadline.is_none() {
                        self.delack_deadline = Some(now + self.delack_span());
                    }
                    AckNeed::Later
                }
            }
        }
    }

    fn remember_block(&mut self, key: u64) {
        // Drop keys that now fall in the same block as `key`, then put it first.
        let blk = self.ooo.containing(key);
        let mut keep = [0u64; MAX_SACK_BLOCKS];
        let mut n = 0;
        keep[n] = key;
        n += 1;
        for i in 0..self.n_keys {
            let k = self.sack_keys[i];
            if self.ooo.containing(k).is_some() && self.ooo.containing(k) != blk && n < MAX_SACK_BLOCKS {
                keep[n] = k;
                n += 1;
            }
        }
        self.sack_keys = keep;
        self.n_keys = n;
    }

    /// The peer's SYN or SYN-ACK: its TSval is the first TS.Recent (RFC 7323 §4.3
    /// rule (2); Linux stores it in tcp_rcv_synsent_state_process and, for the
    /// acceptor, in tcp_openreq_init as req->ts_recent).
    pub fn store_syn_ts(&mut self, h: &TcpHeader) {
        if self.timestamps {
            self.ts_recent = h.ts_val;
        }
    }

    /// The TSval echoed on this end's segments (TS.Recent).
    pub fn ts_recent(&self) -> SimTime {
        self.ts_recent
    }

    /// A segment without data from the peer (its ACK): RFC 7323 §4.3 rule (2), TS.Recent
    /// takes SEG.TSval if SEG.TSval ≥ TS.Recent and SEG.SEQ ≤ Last.ACK.sent (Linux
    /// tcp_replace_ts_recent: `!after(seq, tp->rcv_wup)`), so that a data sender's
    /// segments echo the latest ACK's TSval. Last.ACK.sent is rcv_nxt while no
    /// in-sequence data arrived since our last ACK (`ts_take_next`); once some did,
    /// TS.Recent is that data's TSval (spec 06 §3 rule 3) and an ACK leaves it, so
    /// the echo on an ACK of the peer's data, its RTT sample, is what it was.
    pub fn note_ack_ts(&mut self, h: &TcpHeader) {
        if self.timestamps && self.ts_take_next && h.seq <= self.rcv_nxt && h.ts_val >= self.ts_recent {
            self.ts_recent = h.ts_val;
        }
    }

    /// Fill the ACK fields of an outgoing segment and reset the ACK state.
    pub fn fill_ack(&mut self, h: &mut TcpHeader) {
        h.ack = self.rcv_nxt;
        h.set_window(self.advertised_window());
        if self.timestamps {
            h.ts_ecr = self.ts_recent;
        }
        h.sack_n = 0;
        if self.sack {
            let max = if self.timestamps { 3 } else { 4 };
            let mut n = 0usize;
            h.dsack = false;
            if self.dsack.take().is_some() {
                // The D-SACK block takes the first slot (RFC 2883). The sender only
                // counts D-SACKs (spec 06 §3 rule 2), so the flag carries it and the
                // block's bytes count toward the option length only.
                h.dsack = true;
                h.sack[0] = (0, 0);
                n = 1;
                self.dsacks_sent += 1;
            }
            let mut seen: [(u64, u64); MAX_SACK_BLOCKS] = [(0, 0); MAX_SACK_BLOCKS];
            let mut ns = 0;
            for i in 0..self.n_keys {
                if n >= max {
                    break;
                }
                if let Some(b) = self.ooo.containing(self.sack_keys[i]) {
                    if b.0 > self.rcv_nxt && !seen[..ns].contains(&b) {
                        seen[ns] = b;
                        ns += 1;
                        h.sack[n] = ((b.0 - h.ack) as u32, (b.1 - h.ack) as u32);
                        n += 1;
                    }
                }
            }
            h.sack_n = n as u8;
        }
        self.unacked_bytes = 0;
        self.delack_deadline = None;
        self.ts_take_next = true;
        if self.quick > 0 {
            self.quick -= 1;
        }
    }

    /// Is out-of-order data held?
    pub fn holds_out_of_order(&self) -> bool {
        !self.ooo.is_empty()
    }

    /// Spec 06 §2.3 rule 5: after a read, send a window update if the open
    /// window had fallen to ≤ φ·B_rcv/2 and the new W_adv is at least twice it.
    pub fn wants_window_update(&self) -> bool {
        let open = self.right_edge.saturating_sub(self.rcv_nxt);
        let w = self.formula_window();
        (open as f64) <= self.phi * self.b_rcv as f64 / 2.0 && w >= 2 * open.max(1)
    }

    /// Receive-window value at the receiver (for traces).
    pub fn rcv_wnd(&self) -> u64 {
        self.right_edge.saturating_sub(self.rcv_nxt)
    }
}
