//! The send half of a TCP endpoint: sequence space, the congestion-avoidance
//! state machine, loss recovery and the RTO (spec 06 §2.3–2.8). Policy
//! (cwnd growth, ssthresh) is asked of the congestion control (`host::cc`).

use super::app_source::AppSource;
use super::autotune::{self, SndAutotune};
use super::cwnd_usage::CwndUsage;
use super::delivery_rate::DeliveryRate;
use super::pacing_rate::PacingRate;
use super::recovery::{Recovery, RecoveryAck, DUPTHRESH};
use super::snd_limits::SndLimits;
use super::config::{CwndCredit, IdleRestart, IsLost, LossDetection, LostRetrans, RateHalvingFloor, RecoveryCwnd, SendStallPolicy, SlowStartWhile, TcpConfig};
use super::lost_retrans::LostRetransCheck;
use super::rack::Rack;
use super::rtt::RttEstimator;
use super::scoreboard::{CumAck, LOST, SegRecord, Scoreboard};
use crate::engine::time::{SimTime, Span};
use crate::host::cc::{AckSample, CaState, CcContext, CcEvent, CongestionControl, RoundStats, SsthreshReason, Window};
use crate::net::packet::TcpHeader;

pub use super::snd_limits::{LimDetail, SndLim};

/// Cumulative counters (spec 06 §6).
#[derive(Clone, Copy, Debug, Default)]
pub struct SenderStats {
    pub segments_sent: u64,
    pub retrans: u64,
    pub fast_retrans: u64,
    pub rtos: u64,
    pub send_stalls: u64,
    pub cwr_entries: u64,
    pub dsacks: u64,
    pub bytes_acked: u64,
    pub last_sack_blocks: u64,
    /// Completed rounds: a round ends at the first ACK ≥ the snd_max recorded
    /// when it began (spec 06 §4.1 `on_round_end`).
    pub rounds: u64,
    /// Fast-recovery entries (loss detected by dupacks or SACK).
    pub recoveries: u64,
    /// Times the idle-restart rule cut cwnd (spec 06 §2.7).
    pub idle_restarts: u64,
    /// Tail loss probes sent (Linux `TCPLossProbes`).
    pub tlp_probes: u64,
    /// Probes that repaired a loss (Linux `TCPLossProbeRecovery`).
    pub tlp_recoveries: u64,
    /// Retransmissions found lost by RACK or the old kernels' SACK check
    /// (Linux `TCPLostRetransmit`).
    pub lost_retransmits: u64,
    /// SYN or SYN-ACK retransmissions (spec 06 §2.2 step 4): by the handshake
    /// timer, and, at the acceptor, SYN-ACKs sent again to a retransmitted SYN
    /// (Linux counts both in `total_retrans`: `__tcp_retransmit_skb`, and
    /// `req->num_retrans` copied by `tcp_create_openreq_child`).
    pub syn_retrans: u64,
    /// When the initial slow start ended and cwnd then (segments): at the first
    /// loss detected (before the reduction) or once cwnd reached an ssthresh
    /// that HyStart or the configuration set. None while still in it, and for
    /// algorithms with their own `cong_control` (BBR has no ssthresh-bound
    /// slow start). `lfnlab explain` reads it (issue 40).
    pub slow_start_exit: Option<(SimTime, f64)>,
}

impl SenderStats {
    /// Losses detected so far: fast recoveries and timeouts.
    pub fn congestion_events(&self) -> u64 {
        self.recoveries + self.rtos
    }
}

/// A segment chosen for transmission.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ToSend {
    pub start: u64,
    pub len: u32,
    /// Some(index) for a retransmission.
    pub retransmit: Option<u64>,
}

pub struct Sender {
    // Configuration used per ACK.
    abc_l: u32,
    /// What an ACK credits to slow start and CA (spec 06 §2.1, `TcpConfig::cwnd_credit`).
    cwnd_credit: CwndCredit,
    ss_while: SlowStartWhile,
    is_lost: IsLost,
    /// RACK (RFC 8985) instead of duplicate-ACK counting (`host::tcp::rack`).
    rack_on: bool,
    tlp_on: bool,
    rto_min: Span,
    rto_init: Span,
    /// RACK and TLP state (`host::tcp::rack`).
    pub rack: Rack,
    /// The old kernels' lost-retransmission check, when on (`host::tcp::lost_retrans`;
    /// `dupthresh` with `lost_retrans = "sacktag"`; it acts only with SACK).
    lost_retrans: Option<LostRetransCheck>,
    /// The probe timer fired: the next segment is a loss probe.
    probe_pending: bool,
    /// A probe left in the last `on_sent` (the socket then restarts the RTO).
    probe_sent: bool,
    stall_policy: SendStallPolicy,
    burst_moderation: bool,
    idle_restart: IdleRestart,
    sack: bool,
    timestamps: bool,
    cwnd_limited_growth: bool,
    /// RFC 3742 limited slow start when set (max_ssthresh, segments); the
    /// Quick-Start option turns it on after a used QS episode (spec 02 §2.3.1).
    pub max_ssthresh: Option<f64>,
    /// Effective MSS (payload of a full segment).
    pub mss: u32,
    pub iw_segments: u32,
    pub snd_una: u64,
    /// snd_nxt = snd_max: new data always goes at the end (retransmissions are NextSeg rule 1).
    pub snd_max: u64,
    /// Peer's advertised window, bytes.
    pub snd_wnd: u64,
    pub w: Window,
    pub state: CaState,
    /// Loss recovery's window rules and bookkeeping: the recovery point,
    /// duplicate ACKs, PRR / rate halving, CWR (`host::tcp::recovery`).
    pub rec: Recovery,
    pub sb: Scoreboard,
    pub cc: Box<dyn CongestionControl>,
    /// The application above: what it has written into the send buffer and
    /// will write (`host::tcp::app_source`).
    pub app: AppSource,
    /// Delivery-rate sampling (spec 06 §4.2, `host::tcp::delivery_rate`).
    pub rate: DeliveryRate,
    pub last_data_sent: Option<SimTime>,
    pub stats: SenderStats,
    /// What limits sending, and for how long (`host::tcp::snd_limits`).
    pub limits: SndLimits,
    pub established: bool,
    round_end: u64,
    /// RTT samples of the current round (spec 06 §4.1 `on_round_end`).
    round: RoundAcc,
    /// The pacing rate of spec 06 §4.3 (`host::tcp::pacing_rate`).
    pub pacing: PacingRate,
    /// cwnd use per window (Linux tcp_cwnd_validate, `host::tcp::cwnd_usage`).
    usage: CwndUsage,
    /// Send the next lost segment even if cwnd is full (once; set by a
    /// Quick-Start revert inside recovery, spec 02 §2.3.10).
    pub retransmit_now: bool,
    /// Growth of an unlocked send buffer up to `sndbuf_max_bytes`
    /// (`host::tcp::autotune`); `Off` when the buffer is locked.
    snd_autotune: SndAutotune,
    sndbuf_max_bytes: u64,
    /// Buffer segments per cwnd segment: 2, or 3 for BBR under `linux6`
    /// (6.8 `bbr_sndbuf_expand`); the algorithm is fixed for the connection.
    sndbuf_factor: u64,
}

/// What the sender knew before an ACK.
struct AckPrior {
    una: u64,
    in_flight: u64,
    window_changed: bool,
    had_outstanding: bool,
    lost_marks: u64,
}

/// What an ACK newly delivers.
struct Deliveries {
    cum: CumAck,
    newly_sacked: u64,
    /// Newly cumulatively ACKed (not SACKed before) plus newly SACKed segments.
    newly_delivered: u64,
    /// The latest-sent of them (spec 06 §4.2).
    latest: Option<SegRecord>,
    /// The highest end of the ACK's SACK blocks above the cumulative ACK (0: none).
    sack_high: u64,
}

/// Accumulates the RTT samples and ACKed segments of one round.
#[derive(Clone, Copy, Debug, Default)]
struct RoundAcc {
    min: Option<Span>,
    sum_ps: u128,
    n: u32,
    acked: u64,
}

impl RoundAcc {
    fn add(&mut self, r: Span) {
        self.min = Some(self.min.map_or(r, |m| m.min(r)));
        self.sum_ps += r.0 as u128;
        self.n += 1;
    }

    fn stats(&self) -> RoundStats {
        RoundStats {
            min_rtt: self.min,
            mean_rtt: if self.n > 0 { Some(Span((self.sum_ps / self.n as u128) as u64)) } else { None },
            samples: self.n,
            acked_segments: self.acked,
        }
    }
}

impl Sender {
    pub fn new(cfg: &TcpConfig, cc: Box<dyn CongestionControl>) -> Sender {
        let sndbuf_factor = if cfg.snd_autotune == SndAutotune::Linux6 && cc.name() == "bbr" { 3 } else { 2 };
        Sender {
            abc_l: cfg.abc_l,
            cwnd_credit: cfg.cwnd_credit,
            ss_while: cfg.slow_start_while,
            is_lost: cfg.is_lost,
            rack_on: cfg.loss_detection == LossDetection::Rack,
            tlp_on: cfg.tlp,
            rto_min: cfg.rto_min,
            rto_init: cfg.rto_init,
            rack: Rack::default(),
            lost_retrans: (cfg.loss_detection == LossDetection::Dupthresh && cfg.lost_retrans == LostRetrans::Sacktag)
                .then(LostRetransCheck::default),
            probe_pending: false,
            probe_sent: false,
            stall_policy: cfg.send_stall_policy,
            burst_moderation: cfg.burst_moderation,
            idle_restart: cfg.idle_restart,
            sack: cfg.sack,
            timestamps: cfg.timestamps,
            cwnd_limited_growth: cfg.cwnd_limited_growth,
            max_ssthresh: None,
            mss: 536,
            iw_segments: 1,
            snd_una: 0,
            snd_max: 0,
            snd_wnd: 65535,
            w: Window { cwnd: 1.0, ssthresh: f64::INFINITY },
            state: CaState::Open,
            rec: Recovery::new(cfg.recovery_cwnd).with_half_floor(match cfg.rate_halving_floor {
                RateHalvingFloor::HalfSsthresh => true,
                RateHalvingFloor::Cc => cc.rate_halving_floor_is_half_ssthresh(),
            }),
            sb: Scoreboard::new(),
            cc,
            // An unlocked buffer starts at tcp_wmem[1] (host::tcp::autotune).
            app: AppSource::new(if cfg.sndbuf_lock { cfg.sndbuf_bytes } else { cfg.wmem_default_bytes.min(cfg.sndbuf_bytes) }),
            rate: DeliveryRate::default(),
            last_data_sent: None,
            stats: SenderStats::default(),
            limits: SndLimits::default(),
            established: false,
            round_end: 0,
            round: RoundAcc::default(),
            pacing: PacingRate::new(cfg.pacing != super::config::Pacing::Off, cfg.max_pacing_rate_bytes_per_s),
            usage: CwndUsage::default(),
            retransmit_now: false,
            snd_autotune: if cfg.sndbuf_lock { SndAutotune::Off } else { cfg.snd_autotune },
            sndbuf_max_bytes: cfg.sndbuf_bytes,
            sndbuf_factor,
        }
    }

    /// Grow an unlocked send buffer (`host::tcp::autotune::sndbuf_target`), never
    /// beyond `sndbuf`. Linux expands only while the writer waits on a full buffer
    /// and the flight is below cwnd (2.x `tcp_new_space`: packets_out < cwnd; 6.8
    /// `tcp_should_expand_sndbuf`: in_flight < cwnd); 6.8 also once at
    /// establishment (`tcp_init_buffer_space`), which `force` asks for.
    fn expand_sndbuf(&mut self, force: bool) {
        let flight = match self.snd_autotune {
            SndAutotune::Off => return,
            SndAutotune::Linux2 => self.sb.packets_out,
            SndAutotune::Linux6 => self.sb.pipe(),
        };
        if !force && !(self.app.blocked() && (flight as f64) < self.w.cwnd) {
            return;
        }
        let target = autotune::sndbuf_target(self.snd_autotune, self.w.cwnd, self.mss, self.sndbuf_factor).min(self.sndbuf_max_bytes);
        if target > self.app.b_snd_bytes {
            self.app.b_snd_bytes = target;
        }
    }

    /// Apply the negotiated options once the handshake completes (spec 06 §2.2).
    /// `charge` is the pacer's charge of a full segment, L3 + 14 B (spec 06 §4.3).
    pub fn establish(&mut self, now: SimTime, mss: u32, charge: u32, iw: u32, sack_ok: bool, ts_ok: bool, rtt: &RttEstimator) {
        self.mss = mss;
        self.pacing.establish(charge);
        self.sack = self.sack && sack_ok;
        self.timestamps = self.timestamps && ts_ok;
        self.iw_segments = iw;
        self.w.cwnd = iw as f64;
        self.established = true;
        self.limits.start(now);
        let ctx = self.ctx(now, rtt);
        self.cc.init(&ctx, &mut self.w);
        self.bound();
        if self.snd_autotune == SndAutotune::Linux6 {
            self.expand_sndbuf(true);
        }
        self.app.start(now);
        self.app_write(now);
    }

    pub fn uses_timestamps(&self) -> bool {
        self.timestamps
    }

    pub fn ctx(&self, now: SimTime, rtt: &RttEstimator) -> CcContext {
        CcContext {
            now,
            mss_bytes: self.mss,
            srtt: rtt.srtt,
            rttvar: rtt.rttvar,
            min_rtt: rtt.min_rtt,
            latest_rtt: rtt.latest,
            in_flight: self.sb.pipe(),
            packets_out: self.sb.packets_out,
            flight_size: self.sb.packets_out,
            delivered: self.rate.delivered,
            ca_state: self.state,
            app_limited: self.rate.app_limited(),
            rounds: self.stats.rounds,
            iw_segments: self.iw_segments,
            paced: self.pacing.on,
            pacing_rate_bytes_per_s: self.pacing.bytes_per_s,
        }
    }

    /// Enforce the spec 06 §2.1 bounds: cwnd ≥ 1, ssthresh ≥ 2.
    fn bound(&mut self) {
        debug_assert!(self.w.cwnd.is_finite(), "cwnd must be finite");
        self.w.cwnd = self.w.cwnd.max(1.0);
        self.w.ssthresh = self.w.ssthresh.max(2.0);
    }

    fn set_state(&mut self, now: SimTime, rtt: &RttEstimator, new: CaState) {
        if new != self.state {
            let old = self.state;
            self.state = new;
            let ctx = self.ctx(now, rtt);
            self.cc.on_state_change(&ctx, &mut self.w, old, new);
        }
    }

    /// When a rate-limited application will have produced its next segment,
    /// if the socket is waiting for it.
    pub fn app_wake_at(&self) -> Option<SimTime> {
        self.app.wake_at(self.established, self.mss)
    }



    /// The application now has `total` bytes to send in all (None: unlimited)
    /// and writes what fits (a response of spec 02 §3.1).
    pub fn app_set_total(&mut self, now: SimTime, total: Option<u64>) {
        self.app.set_total(total);
        self.app_write(now);
    }

    /// The application has `bytes` more to send and writes what fits (a Web
    /// request or response, spec 02 §3.2).
    pub fn app_add(&mut self, now: SimTime, bytes: u64) {
        self.app.add(bytes);
        self.app_write(now);
    }



    /// The application writes while Q_snd < B_snd, else blocks until Q_snd ≤ ⅔·B_snd.
    pub fn app_write(&mut self, now: SimTime) {
        self.app.write(now, self.snd_una, self.mss);
    }

    /// Bytes a write() may hand over now (spec 04 §2.8 sender rule 1).
    pub fn writer_room(&mut self) -> u64 {
        self.app.writer_room(self.established, self.snd_una)
    }

    /// A write() of the external writer handed over `bytes`.
    pub fn app_push(&mut self, bytes: u64) {
        self.app.push(bytes, self.snd_una);
    }

    pub fn all_acked(&self) -> bool {
        self.app.all_acked(self.snd_una)
    }

    /// In slow start with no loss, recovery or local congestion pending
    /// (where Clustered Packet Spacing may act, spec 03 §2.5 scope).
    pub fn in_open_slow_start(&self) -> bool {
        matches!(self.state, CaState::Open | CaState::Disorder) && self.in_slow_start()
    }

    /// The window cap of a CPS round: min(ssthresh, rwnd) in segments (spec 03 §2.5).
    pub fn window_cap_segments(&self) -> f64 {
        self.w.ssthresh.min(self.snd_wnd as f64 / self.mss.max(1) as f64)
    }

    fn in_slow_start(&self) -> bool {
        match self.ss_while {
            SlowStartWhile::Le => self.w.cwnd <= self.w.ssthresh,
            SlowStartWhile::Lt => self.w.cwnd < self.w.ssthresh,
        }
    }

    /// Process an incoming ACK (spec 06 §2.4–2.5): a short sequence of named
    /// steps, in the order Linux's `tcp_ack` takes them. Returns true if
    /// snd_una advanced.
    pub fn on_ack(&mut self, now: SimTime, h: &TcpHeader, rtt: &mut RttEstimator) -> bool {
        let ack = h.ack;
        if !self.established || ack > self.snd_max || ack < self.snd_una {
            return false;
        }
        let prior = AckPrior {
            una: self.snd_una,
            in_flight: self.sb.pipe(),
            window_changed: h.window() != self.snd_wnd,
            had_outstanding: self.sb.packets_out > 0,
            lost_marks: self.sb.lost_marks,
        };
        let mut d = self.take_deliveries(now, h, rtt);
        let advanced = d.cum.segments > 0;
        self.check_lost_retransmissions(d.sack_high);
        self.count_reno_sacks(h, &prior, &mut d);
        let rate = self.rate.on_ack(now, d.newly_delivered, d.latest, rtt.min_rtt, self.mss);
        self.round.acked += d.cum.segments;
        let rtt_sample = self.sample_rtt(now, h, &d.cum, rtt);
        let round_start = self.end_round(now, ack, advanced, rtt);
        self.process_tlp_ack(now, h, advanced, d.newly_sacked > 0, rtt);
        let is_dup = self.count_dupack(h, &prior, advanced, d.newly_sacked);
        self.update_ca_state(now, ack, advanced, rtt);

        let mut sample = AckSample {
            acked_segments: d.cum.segments,
            acked_bytes: d.cum.bytes,
            credit: 0.0,
            rtt: rtt_sample,
            prior_in_flight: prior.in_flight,
            newly_delivered: d.newly_delivered,
            newly_lost: self.sb.lost_marks - prior.lost_marks,
            round_start,
            rate,
        };
        self.adjust_cwnd(now, rtt, &mut sample, is_dup, advanced);
        if self.stats.slow_start_exit.is_none() && self.w.ssthresh.is_finite() && !self.in_slow_start() {
            // HyStart (or a configured ssthresh) ended slow start without a loss.
            self.note_slow_start_exit(now, self.w.cwnd);
        }
        if advanced {
            self.expand_sndbuf(false);
            self.app_write(now);
        }
        self.update_pacing_rate(now, rtt);
        advanced
    }

    /// What the ACK newly delivers: its SACK blocks (RFC 2018, D-SACK RFC
    /// 2883), then the cumulative advance; snd_una and snd_wnd move.
    fn take_deliveries(&mut self, now: SimTime, h: &TcpHeader, rtt: &RttEstimator) -> Deliveries {
        let ack = h.ack;
        // Reordering (`tcp_check_sack_reordering`): a never retransmitted
        // segment delivered below the highest SACKed byte before this ACK.
        let prior_fack = self.sb.highest_sacked_end().unwrap_or(self.snd_una);
        let mut reord_low = u64::MAX;
        // The latest-sent segment this ACK newly delivers (spec 06 §4.2).
        let mut latest: Option<SegRecord> = None;
        let mut note = |s: &SegRecord| {
            if latest.is_none_or(|l| l.sent_at <= s.sent_at) {
                latest = Some(*s);
            }
            if !s.has(super::scoreboard::EVER_RETRANS) {
                reord_low = reord_low.min(s.start);
            }
        };
        let mut newly_sacked = 0;
        let mut sack_high = 0;
        if self.sack {
            self.stats.last_sack_blocks = h.sack_n as u64;
            let first = if h.dsack { 1 } else { 0 };
            if h.dsack {
                self.stats.dsacks += 1;
            }
            for i in first..h.sack_n as usize {
                let (s, e) = h.sack_block(i);
                if e > ack {
                    newly_sacked += self.sb.sack(s.max(ack), e, &mut note);
                    sack_high = sack_high.max(e);
                }
            }
        }
        let cum = if ack > self.snd_una { self.sb.ack_cum(ack) } else { Default::default() };
        if let Some(c) = &cum.latest {
            note(c);
        }
        reord_low = reord_low.min(cum.pristine_low.unwrap_or(u64::MAX));
        if self.rack_on && self.sack {
            if let Some(l) = &latest {
                self.rack.advance(now, l, rtt.min_rtt);
            }
            self.rack.note_reordering(reord_low, prior_fack, self.mss);
            if h.dsack {
                self.rack.on_dsack();
            }
            // The count after this ACK, as Linux's tp->delivered when tcp_ack calls
            // tcp_rack_update_reo_wnd: cumulative and SACKed deliveries alike.
            let prior_delivered = latest.map_or(0, |l| l.delivered(self.rate.delivered));
            self.rack.update_reo_wnd(prior_delivered, self.rate.delivered + cum.newly_delivered + newly_sacked);
        }
        self.snd_una = ack;
        self.snd_wnd = h.window();
        self.stats.bytes_acked += cum.bytes;
        Deliveries { newly_delivered: cum.newly_delivered + newly_sacked, newly_sacked, latest, cum, sack_high }
    }

    /// The old kernels' lost-retransmission check (`host::tcp::lost_retrans`): in
    /// Recovery, as the ACK's SACK blocks are tagged (Linux runs it inside
    /// `tcp_sacktag_write_queue`, before `tcp_fastretrans_alert` moves the state),
    /// every retransmission they reach beyond is lost again. Without FACK the
    /// blocks must reach `reordering` (DupThresh) segments beyond it.
    fn check_lost_retransmissions(&mut self, sack_high: u64) {
        let Some(check) = self.lost_retrans.as_mut() else { return };
        if !self.sack || sack_high == 0 || self.state != CaState::Recovery {
            return;
        }
        let margin_bytes = if self.is_lost == IsLost::Fack { 0 } else { DUPTHRESH as u64 * self.mss as u64 };
        self.stats.lost_retransmits += check.check(&mut self.sb, sack_high, margin_bytes);
    }

    /// The RTT sample of an advancing ACK (spec 06 §2.6): TSecr with
    /// timestamps, else Karn; it feeds the estimator, the round and the
    /// congestion control.
    fn sample_rtt(&mut self, now: SimTime, h: &TcpHeader, cum: &CumAck, rtt: &mut RttEstimator) -> Option<Span> {
        let sample = if cum.segments == 0 {
            None
        } else if self.timestamps && h.ts_ecr > SimTime::ZERO {
            Some(now.since(h.ts_ecr))
        } else {
            cum.karn_sent_at.map(|t| now.since(t))
        };
        if let Some(r) = sample {
            rtt.sample(r);
            self.round.add(r);
            let ctx = self.ctx(now, rtt);
            self.cc.on_rtt_sample(&ctx, &mut self.w, r);
        }
        sample
    }

    /// Round end: the first ACK at or above the snd_max recorded when the
    /// round began (spec 06 §4.1 `on_round_end`). Returns whether one ended.
    fn end_round(&mut self, now: SimTime, ack: u64, advanced: bool, rtt: &RttEstimator) -> bool {
        let round_start = advanced && self.round_end > 0 && ack >= self.round_end;
        if round_start {
            self.stats.rounds += 1;
            self.round_end = self.snd_max;
            let stats = self.round.stats();
            self.round = RoundAcc::default();
            let ctx = self.ctx(now, rtt);
            self.cc.on_round_end(&ctx, &mut self.w, &stats);
        }
        round_start
    }

    /// A duplicate ACK in the sense of spec 06 §2.5 without SACK: ack =
    /// snd_una, no payload, unchanged window, data outstanding.
    fn is_plain_dup(h: &TcpHeader, prior: &AckPrior, advanced: bool) -> bool {
        !advanced && h.payload == 0 && !prior.window_changed && prior.had_outstanding && h.ack == prior.una
    }

    /// Without SACK, in every recovery mode but `rfc`, each duplicate ACK
    /// counts one segment as SACKed and a cumulative ACK removes what it
    /// covered but one (spec 06 §2.5 pipe; `Scoreboard::add_reno_sack`). The
    /// states follow Linux `tcp_fastretrans_alert` (2.6.20 l.2016–2055, 6.8
    /// l.3040–3086): duplicates count in Open, Disorder and Recovery, not in
    /// Loss (2.x ignores them there; 6.8 counts them only after F-RTO sent
    /// new data, which lfnlab does not model); an advance outside Recovery
    /// resets the count, as does leaving Recovery (`exit_recovery`). What is
    /// delivered follows the count (6.8 `tcp_add_reno_sack` and
    /// `tcp_remove_reno_sacks` add to `tp->delivered`).
    fn count_reno_sacks(&mut self, h: &TcpHeader, prior: &AckPrior, d: &mut Deliveries) {
        if self.sack || self.rec.mode() == RecoveryCwnd::Rfc {
            return;
        }
        if d.cum.segments > 0 {
            d.newly_delivered = self.sb.remove_reno_sacks(d.cum.segments);
            if self.state != CaState::Recovery {
                self.sb.reset_reno_sacks();
            }
        } else if self.state != CaState::Loss && Self::is_plain_dup(h, prior, false) {
            d.newly_delivered = self.sb.add_reno_sack();
        }
    }

    /// Duplicate ACKs (spec 06 §2.5) and, with SACK, lost marking
    /// (RFC 6675 IsLost, or FACK). Returns whether this ACK is a duplicate.
    fn count_dupack(&mut self, h: &TcpHeader, prior: &AckPrior, advanced: bool, newly_sacked: u64) -> bool {
        let is_dup = Self::is_plain_dup(h, prior, advanced) || (self.sack && newly_sacked > 0);
        self.rec.count_ack(advanced, is_dup);
        if self.sack && !self.rack_on {
            self.sb.mark_lost(DUPTHRESH as u64, self.is_lost == IsLost::Fack);
        }
        is_dup
    }

    /// The congestion-avoidance state machine after an ACK (spec 06 §2.5;
    /// Linux `tcp_fastretrans_alert`): leaving recovery, loss and CWR,
    /// entering recovery once per window, Open ↔ Disorder, and a partial
    /// ACK's lost head without SACK.
    fn update_ca_state(&mut self, now: SimTime, ack: u64, advanced: bool, rtt: &RttEstimator) {
        match self.state {
            CaState::Recovery if self.rec.recovered(ack) || (advanced && self.cc.reno_recovery()) => {
                self.exit_recovery(now, rtt);
            }
            CaState::Loss if self.rec.recovered(ack) => {
                self.set_state(now, rtt, CaState::Open);
            }
            CaState::Cwr if self.rec.cwr_done(ack) => {
                self.set_state(now, rtt, CaState::Open);
            }
            _ => {}
        }

        if self.rack_on && self.sack {
            // Linux 6.x tcp_fastretrans_alert → tcp_identify_packet_loss →
            // tcp_rack_mark_lost, then tcp_time_to_recover: lost_out > 0. In
            // Loss, a lost retransmission starts a recovery too (the
            // FLAG_LOST_RETRANS fall-through).
            let lost_retransmits = self.rack_detect(now, rtt, true);
            let from_open = matches!(self.state, CaState::Open | CaState::Disorder | CaState::Cwr) && self.rec.may_enter(ack);
            let from_loss = self.state == CaState::Loss && lost_retransmits > 0;
            if (from_open || from_loss) && self.sb.lost_out > 0 {
                self.enter_recovery(now, rtt);
            }
        } else if matches!(self.state, CaState::Open | CaState::Disorder | CaState::Cwr)
            && self.rec.may_enter(ack)
            && self.sb.packets_out > 0
        {
            // Entering recovery: once per window (snd_una > recover).
            let head_lost = self.sack && self.sb.first().is_some_and(|s| s.has(LOST));
            if self.rec.dupacks >= DUPTHRESH || head_lost {
                self.enter_recovery(now, rtt);
            }
        }

        match self.state {
            CaState::Open if self.rec.dupacks > 0 || self.sb.sacked_out > 0 => self.set_state(now, rtt, CaState::Disorder),
            CaState::Disorder if self.rec.dupacks == 0 && self.sb.sacked_out == 0 => {
                self.set_state(now, rtt, CaState::Open);
                self.moderate_burst();
            }
            _ => {}
        }

        // Without SACK a partial ACK marks the first unacknowledged segment Lost
        // (spec 06 §2.5, every recovery mode).
        if !self.sack && advanced && self.state == CaState::Recovery {
            self.sb.mark_head_lost();
        }
    }

    /// cwnd after an ACK: the algorithm's own `cong_control`, or the core
    /// rules per state (spec 06 §2.4: recovery, CWR, growth).
    fn adjust_cwnd(&mut self, now: SimTime, rtt: &RttEstimator, sample: &mut AckSample, is_dup: bool, advanced: bool) {
        if self.cc.has_cong_control() {
            let ctx = self.ctx(now, rtt);
            self.cc.cong_control(&ctx, &mut self.w, sample);
            self.bound();
            return;
        }
        match self.state {
            CaState::Recovery => {
                let pipe = self.sb.pipe();
                let a = RecoveryAck {
                    acked: sample.acked_segments,
                    delivered: sample.newly_delivered,
                    dup: is_dup,
                    advanced,
                    newly_lost: sample.newly_lost,
                };
                self.rec.on_ack(&mut self.w, pipe, self.sack, a);
            }
            CaState::Cwr => {
                if self.stall_policy == SendStallPolicy::CwrGradual {
                    self.rec.cwr_gradual_ack(&mut self.w);
                }
            }
            CaState::Open | CaState::Disorder | CaState::Loss => {
                if advanced {
                    self.grow(now, rtt, sample);
                }
                // Moderation on ACKs in Disorder and, as Linux 2.4.20 / 2.6.x
                // tcp_fastretrans_alert's TCP_CA_Loss case, on every ACK in Loss.
                if matches!(self.state, CaState::Disorder | CaState::Loss) {
                    self.moderate_burst();
                }
            }
        }
        self.bound();
    }

    /// The pacing rate after an ACK (spec 06 §4.3, `host::tcp::pacing_rate`).
    fn update_pacing_rate(&mut self, now: SimTime, rtt: &RttEstimator) {
        let ctx = self.ctx(now, rtt);
        let cc_rate = self.cc.pacing_rate(&ctx, &self.w);
        self.pacing.update(cc_rate, rtt.srtt, &self.w, self.sb.packets_out, self.mss);
    }

    /// burst_moderation: cwnd ← min(cwnd, in_flight + 3) (spec 06 §2.4).
    fn moderate_burst(&mut self) {
        if self.burst_moderation && !self.cc.has_cong_control() {
            self.w.cwnd = self.w.cwnd.min((self.sb.pipe() + 3) as f64);
        }
    }

    /// After a transmission attempt: track cwnd usage per window (Linux
    /// tcp_cwnd_validate, `host::tcp::cwnd_usage`).
    pub fn cwnd_validate(&mut self) {
        self.usage.on_transmit_attempt(self.sb.pipe(), self.w.cwnd, self.sb.packets_out, self.snd_una, self.snd_max);
    }

    /// Slow start and congestion avoidance (spec 06 §2.4).
    fn grow(&mut self, now: SimTime, rtt: &RttEstimator, a: &mut AckSample) {
        if self.cwnd_limited_growth && !self.usage.limited(a.prior_in_flight, self.w.cwnd, self.in_slow_start()) {
            return;
        }
        let l = if self.abc_l == u32::MAX { f64::INFINITY } else { self.abc_l as f64 };
        // The era's basis (profiles.rs): the cumulative advance (Linux 2.4/2.6) or what
        // this ACK newly delivered (Linux 6.x tcp_cong_avoid(sk, ack, acked_sacked)).
        let basis = match self.cwnd_credit {
            CwndCredit::Acked => a.acked_segments,
            CwndCredit::Delivered => a.newly_delivered,
        };
        let mut credit = (basis as f64).min(l);
        if self.in_slow_start() {
            credit = match self.max_ssthresh {
                Some(m) => limited_slow_start(&mut self.w, credit, m),
                None => slow_start(&mut self.w, credit, l),
            };
        }
        // In Loss too (spec 06 §2.4, §2.5 RTO step 4, §4.1 `on_ack`): slow start
        // up to ssthresh, the rest is congestion avoidance, as Linux's
        // tcp_cong_avoid in CA_Loss. A cumulative ACK filling the hole under
        // thousands of SACKed segments must not push cwnd past ssthresh.
        if credit > 0.0 {
            let ctx = self.ctx(now, rtt);
            a.credit = credit;
            self.cc.on_ack(&ctx, &mut self.w, a);
        }
    }

    /// Fast recovery begins (spec 06 §2.5): ssthresh from the algorithm, the
    /// head marked lost, cwnd by the recovery mode (`host::tcp::recovery`).
    fn enter_recovery(&mut self, now: SimTime, rtt: &RttEstimator) {
        self.note_slow_start_exit(now, self.w.cwnd);
        let ctx = self.ctx(now, rtt);
        let ss = self.cc.ssthresh(&ctx, &self.w, SsthreshReason::FastRetransmit);
        self.w.ssthresh = ss.max(2.0);
        // With RACK the losses are already marked (Linux marks the head only in
        // tcp_update_scoreboard, which runs when RACK is off).
        if !(self.rack_on && self.sack) {
            self.sb.mark_head_lost();
        }
        self.rack.on_recovery_start();
        self.stats.recoveries += 1;
        let window_rules = !self.cc.has_cong_control();
        self.rec.enter(&mut self.w, self.snd_max, self.sb.pipe(), self.sack, window_rules);
        self.set_state(now, rtt, CaState::Recovery);
    }

    fn exit_recovery(&mut self, now: SimTime, rtt: &RttEstimator) {
        self.rack.on_recovery_end();
        // Linux tcp_fastretrans_alert, TCP_CA_Recovery at high_seq: tcp_reset_reno_sack.
        self.sb.reset_reno_sacks();
        if !self.cc.has_cong_control() {
            self.w.cwnd = self.rec.exit_cwnd(&self.w, self.sb.packets_out, self.sack);
        }
        let next = if self.sb.sacked_out > 0 { CaState::Disorder } else { CaState::Open };
        self.set_state(now, rtt, next);
        if next == CaState::Open {
            self.moderate_burst();
        }
    }

    /// Retransmission timeout (spec 06 §2.5 RTO steps 1–3).
    pub fn on_rto(&mut self, now: SimTime, rtt: &mut RttEstimator) {
        self.note_slow_start_exit(now, self.w.cwnd);
        if rtt.backoff == 0 {
            let ctx = self.ctx(now, rtt);
            self.w.ssthresh = self.cc.ssthresh(&ctx, &self.w, SsthreshReason::Rto).max(2.0);
        }
        self.w.cwnd = 1.0;
        self.sb.on_rto();
        self.rack.on_rto();
        if let Some(check) = self.lost_retrans.as_mut() {
            check.on_rto();
        }
        self.probe_pending = false;
        self.rec.on_rto(self.snd_max);
        self.set_state(now, rtt, CaState::Loss);
        let ctx = self.ctx(now, rtt);
        self.cc.on_rto(&ctx, &mut self.w);
        self.bound();
        rtt.back_off();
        self.stats.rtos += 1;
    }

    /// Idle restart before new data (spec 06 §2.7).
    fn maybe_idle_restart(&mut self, now: SimTime, rtt: &RttEstimator) {
        let Some(last) = self.last_data_sent else { return };
        if self.sb.packets_out > 0 {
            return;
        }
        let idle = now.since(last);
        let rto = rtt.rto();
        if idle <= rto {
            return;
        }
        let floor = (self.iw_segments as f64).min(self.w.cwnd);
        match self.idle_restart {
            IdleRestart::Off => return,
            IdleRestart::Rfc5681 => self.w.cwnd = floor,
            IdleRestart::Linux => {
                self.w.ssthresh = self.w.ssthresh.max((0.75 * self.w.cwnd).floor());
                let mut k = idle.0 / rto.0.max(1);
                while k > 0 && self.w.cwnd > floor {
                    self.w.cwnd = (self.w.cwnd / 2.0).max(floor);
                    k -= 1;
                }
            }
        }
        self.bound();
        self.stats.idle_restarts += 1;
        let ctx = self.ctx(now, rtt);
        self.cc.on_event(&ctx, &mut self.w, CcEvent::IdleRestart { idle });
        self.last_data_sent = Some(now);
    }

    /// NextSeg (spec 06 §2.5, RFC 6675 §4): the next segment the window allows,
    /// or the reason nothing may be sent.
    pub fn next_segment(&mut self, now: SimTime, rtt: &RttEstimator) -> Result<ToSend, SndLim> {
        if !self.established {
            return Err(SndLim::Application);
        }
        if self.probe_pending {
            if let Some(seg) = self.probe_segment() {
                return Ok(seg);
            }
            self.probe_pending = false;
        }
        if self.retransmit_now {
            self.retransmit_now = false;
            if let Some(idx) = self.sb.next_lost() {
                let s = self.sb.get(idx);
                return Ok(ToSend { start: s.start, len: s.len as u32, retransmit: Some(idx) });
            }
        }
        if self.sb.pipe() + 1 > self.w.cwnd.floor() as u64 {
            return Err(SndLim::Cwnd);
        }
        // (1) lowest Lost segment not yet retransmitted.
        if let Some(idx) = self.sb.next_lost() {
            let s = self.sb.get(idx);
            return Ok(ToSend { start: s.start, len: s.len as u32, retransmit: Some(idx) });
        }
        // (2) new data within the peer's window.
        let avail = self.app.written - self.snd_max;
        if avail > 0 {
            let len = avail.min(self.mss as u64);
            if self.snd_max + len > self.snd_una + self.snd_wnd {
                return Err(SndLim::Rwnd);
            }
            self.maybe_idle_restart(now, rtt);
            if self.sb.pipe() + 1 > self.w.cwnd.floor() as u64 {
                return Err(SndLim::Cwnd);
            }
            return Ok(ToSend { start: self.snd_max, len: len as u32, retransmit: None });
        }
        // (3) in recovery: an un-SACKed, unretransmitted segment below the highest SACKed.
        if self.state == CaState::Recovery {
            if let Some(idx) = self.sb.next_rule3() {
                let s = self.sb.get(idx);
                return Ok(ToSend { start: s.start, len: s.len as u32, retransmit: Some(idx) });
            }
        }
        // The application has no data: app-limited (spec 06 §4.2).
        if self.sb.lost_out == 0 {
            self.rate.mark_app_limited(self.sb.pipe());
        }
        Err(SndLim::Application)
    }

    /// Record that `seg` left at `now`.
    pub fn on_sent(&mut self, now: SimTime, seg: ToSend) {
        if self.sb.packets_out == 0 {
            self.rate.restart(now);
        }
        match seg.retransmit {
            Some(idx) => {
                self.sb.retransmitted(idx, now);
                if self.rack_on {
                    self.rack.on_retransmit(idx, now);
                }
                // Only SACK can reach beyond a retransmission: without it nothing would
                // drain the list.
                if let Some(check) = self.lost_retrans.as_mut().filter(|_| self.sack) {
                    check.on_retransmit(idx, now, self.snd_max);
                }
                // A retransmission is a new transmission for the rate sample (spec 06 §4.2).
                self.rate.stamp(self.sb.get_mut(idx));
                self.stats.retrans += 1;
                if self.state == CaState::Recovery {
                    self.stats.fast_retrans += 1;
                }
            }
            None => {
                debug_assert!(seg.len <= u16::MAX as u32, "segments are at most one MSS");
                let mut rec = SegRecord {
                    start: seg.start,
                    len: seg.len as u16,
                    flags: 0,
                    sent_at: now,
                    delivered_lo32: 0,
                    delivered_time: SimTime::ZERO,
                    first_sent_time: SimTime::ZERO,
                    app_limited: false,
                };
                self.rate.stamp(&mut rec);
                self.sb.push(rec);
                self.snd_max = seg.start + seg.len as u64;
                if self.round_end == 0 {
                    self.round_end = self.snd_max;
                }
            }
        }
        if self.state == CaState::Recovery {
            self.rec.on_sent_in_recovery();
        }
        self.stats.segments_sent += 1;
        self.last_data_sent = Some(now);
        if self.probe_pending {
            // tcp_send_loss_probe: probe_sent records snd_nxt.
            self.probe_pending = false;
            self.probe_sent = true;
            self.stats.tlp_probes += 1;
            self.rack.on_probe_sent(self.snd_max, seg.retransmit.is_some());
        }
    }

    /// RACK detection (`tcp_rack_mark_lost`; `gated`: only when a delivery
    /// advanced RACK, as on an ACK). Returns the lost retransmissions found.
    fn rack_detect(&mut self, now: SimTime, rtt: &RttEstimator, gated: bool) -> u64 {
        if gated && !self.rack.take_advanced() {
            return 0;
        }
        let in_recovery = matches!(self.state, CaState::Recovery | CaState::Loss);
        let reo_wnd = self.rack.reo_wnd(in_recovery, self.sb.sacked_out, rtt.min_rtt, rtt.srtt);
        let d = self.rack.detect_loss(now, &mut self.sb, reo_wnd);
        self.stats.lost_retransmits += d.lost_retransmits;
        d.lost_retransmits
    }

    /// The reorder timer fired (`tcp_rack_reo_timeout`): mark what has expired;
    /// if that changed the flight, enter recovery (unless in it) with one
    /// segment's send quota, as Linux's `tcp_cwnd_reduction(sk, 1, …)`.
    pub fn on_reo_timeout(&mut self, now: SimTime, rtt: &RttEstimator) {
        self.rack.reo_deadline = None;
        let prior = self.sb.pipe();
        let lost_before = self.sb.lost_marks;
        self.rack_detect(now, rtt, false);
        if self.sb.pipe() != prior && self.state != CaState::Recovery {
            self.enter_recovery(now, rtt);
            if !self.cc.has_cong_control() {
                let pipe = self.sb.pipe();
                // tcp_rack_reo_timeout: tcp_cwnd_reduction(sk, 1, tp->lost - lost, 0).
                let a = RecoveryAck { acked: 0, delivered: 1, dup: false, advanced: false, newly_lost: self.sb.lost_marks - lost_before };
                self.rec.on_ack(&mut self.w, pipe, self.sack, a);
                self.bound();
            }
        }
    }

    /// `tcp_schedule_loss_probe`: arm the probe timer in Open or CWR with data
    /// outstanding, no later than the RTO (`rto_left`). Returns whether it was armed.
    /// `after_send`: called from the transmit path (`tcp_write_xmit`), where a
    /// refusal leaves the timer as it was; after an ACK (`tcp_set_xmit_timer`)
    /// a refusal means the RTO rules alone.
    pub fn schedule_loss_probe(&mut self, now: SimTime, rtt: &RttEstimator, rto_left: Span, after_send: bool) -> bool {
        let armed = self.tlp_on
            && self.sack
            && self.sb.packets_out > 0
            && matches!(self.state, CaState::Open | CaState::Cwr);
        if armed {
            let pto = Rack::probe_timeout(rtt.srtt, self.sb.packets_out, self.rto_min, self.rto_init, rto_left);
            self.rack.tlp_deadline = Some(now + pto);
        } else if !after_send {
            self.rack.tlp_deadline = None;
        }
        armed
    }

    /// The probe timer fired (`tcp_send_loss_probe`): with no probe
    /// outstanding, the next segment sent is the probe.
    pub fn on_probe_timer(&mut self) {
        self.rack.tlp_deadline = None;
        if self.rack.tlp_high_seq.is_none() && self.sb.packets_out > 0 {
            self.probe_pending = true;
        }
    }

    /// Did the last `on_sent` send a probe? (The socket restarts the RTO.)
    pub fn take_probe_sent(&mut self) -> bool {
        std::mem::replace(&mut self.probe_sent, false)
    }

    /// The probe: new data if the peer's window allows it, even with cwnd
    /// full (`tcp_write_xmit` with push_one = 2), else the highest segment
    /// sent, again (`skb_rb_last` of the retransmission queue).
    fn probe_segment(&self) -> Option<ToSend> {
        let avail = self.app.written - self.snd_max;
        if avail > 0 {
            let len = avail.min(self.mss as u64);
            if self.snd_max + len <= self.snd_una + self.snd_wnd {
                return Some(ToSend { start: self.snd_max, len: len as u32, retransmit: None });
            }
        }
        let idx = self.sb.end_idx().checked_sub(1).filter(|&i| i >= self.sb.base())?;
        let s = self.sb.get(idx);
        (!s.has(super::scoreboard::SACKED)).then_some(ToSend { start: s.start, len: s.len as u32, retransmit: Some(idx) })
    }

    /// `tcp_process_tlp_ack`: a probe that repaired a loss costs one cwnd
    /// reduction, as Linux's CWR: ssthresh from the algorithm, cwnd = ssthresh
    /// (`tcp_init_cwnd_reduction`, `tcp_end_cwnd_reduction`).
    fn process_tlp_ack(&mut self, now: SimTime, h: &TcpHeader, advanced: bool, new_data_sacked: bool, rtt: &RttEstimator) {
        let dsack_end = h.dsack.then(|| h.sack_block(0).1);
        if !self.rack.process_tlp_ack(h.ack, dsack_end, advanced, new_data_sacked) {
            return;
        }
        self.stats.tlp_recoveries += 1;
        if self.cc.has_cong_control() {
            return;
        }
        let ctx = self.ctx(now, rtt);
        self.w.ssthresh = self.cc.ssthresh(&ctx, &self.w, SsthreshReason::FastRetransmit).max(2.0);
        let prior = self.state;
        self.set_state(now, rtt, CaState::Cwr);
        self.w.cwnd = self.w.ssthresh;
        self.set_state(now, rtt, prior);
        self.bound();
    }

    /// The IFQ refused a data segment (spec 06 §2.8).
    pub fn on_stall(&mut self, now: SimTime, rtt: &RttEstimator) {
        self.stats.send_stalls += 1;
        // An algorithm with `cong_control` owns cwnd: a stall only blocks.
        if !matches!(self.state, CaState::Open | CaState::Disorder) || self.cc.has_cong_control() {
            return;
        }
        match self.stall_policy {
            SendStallPolicy::Block => {}
            SendStallPolicy::Cwr | SendStallPolicy::CwrGradual => {
                let ctx = self.ctx(now, rtt);
                self.w.ssthresh = self.cc.ssthresh(&ctx, &self.w, SsthreshReason::LocalStall).max(2.0);
                self.w.cwnd = if self.stall_policy == SendStallPolicy::Cwr {
                    self.w.cwnd.min(self.w.ssthresh)
                } else {
                    self.w.cwnd.min((self.sb.pipe() + 1) as f64)
                };
                self.rec.enter_cwr(self.snd_max);
                self.stats.cwr_entries += 1;
                self.set_state(now, rtt, CaState::Cwr);
                self.bound();
            }
        }
    }

    /// Account time spent under each sending limit, and under its finer
    /// [`LimDetail`]: a cwnd limit by the phase the sender is in, an
    /// application limit by whether the writer waits for send-buffer room.
    pub fn set_lim(&mut self, now: SimTime, lim: SndLim) {
        let detail = match lim {
            SndLim::Cwnd => match self.state {
                CaState::Recovery | CaState::Loss | CaState::Cwr => LimDetail::Recovery,
                CaState::Open | CaState::Disorder if self.in_slow_start() => LimDetail::SlowStart,
                CaState::Open | CaState::Disorder => LimDetail::CongestionAvoidance,
            },
            SndLim::Application if self.app.blocked() => LimDetail::Sndbuf,
            SndLim::Application => LimDetail::Application,
            SndLim::Rwnd => LimDetail::Rwnd,
            SndLim::Stall => LimDetail::Stall,
            SndLim::Pacing => LimDetail::Pacing,
        };
        self.limits.set(now, lim, detail);
    }

    /// Time spent under each limit up to `now`.
    pub fn lim_time_at(&self, now: SimTime) -> [Span; 5] {
        self.limits.time_at(now)
    }

    /// Time spent under each [`LimDetail`] up to `now`.
    pub fn lim_detail_time_at(&self, now: SimTime) -> [Span; 8] {
        self.limits.detail_time_at(now)
    }

    /// The initial slow start ends here with cwnd `cwnd` (the first call counts).
    fn note_slow_start_exit(&mut self, now: SimTime, cwnd: f64) {
        if self.stats.slow_start_exit.is_none() && !self.cc.has_cong_control() {
            self.stats.slow_start_exit = Some((now, cwnd));
        }
    }
}

/// The slow-start part of an ACK's credit (segments, already capped at the ABC
/// limit `l`, spec 06 §2.4): cwnd grows by it; with L = ∞ growth stops at
/// ssthresh. Returns what is left for congestion avoidance.
/// RFC 3742 limited slow start: per acknowledged segment cwnd grows by 1
/// while cwnd ≤ max_ssthresh, else by 1/K with K = ⌊cwnd/(max_ssthresh/2)⌋,
/// at most about max_ssthresh/2 per RTT. Stops at ssthresh and returns the
/// credit left for congestion avoidance.
pub fn limited_slow_start(w: &mut Window, mut credit: f64, max_ssthresh: f64) -> f64 {
    while credit > 0.0 && w.cwnd < w.ssthresh {
        let step = credit.min(1.0);
        let k = if w.cwnd <= max_ssthresh { 1.0 } else { (w.cwnd / (0.5 * max_ssthresh)).floor() };
        w.cwnd = (w.cwnd + step / k).min(w.ssthresh);
        credit -= step;
    }
    credit
}

pub fn slow_start(w: &mut Window, credit: f64, l: f64) -> f64 {
    if l.is_infinite() {
        let used = credit.min((w.ssthresh - w.cwnd).max(0.0));
        w.cwnd += used;
        credit - used
    } else {
        w.cwnd += credit;
        0.0
    }
}


#[cfg(test)]
mod slow_start_tests {
    use super::*;

    /// RFC 3742 §2: one segment per ACK up to max_ssthresh, then 1/K with
    /// K = ⌊cwnd/(max_ssthresh/2)⌋; never past ssthresh.
    #[test]
    fn limited_slow_start_follows_rfc_3742() {
        let mut w = Window { cwnd: 99.0, ssthresh: f64::INFINITY };
        assert_eq!(limited_slow_start(&mut w, 3.0, 100.0), 0.0);
        // 99 → 100 → 101 (cwnd ≤ 100: one per ACK), then K = ⌊101/50⌋ = 2: 101.5.
        assert_eq!(w.cwnd, 101.5);
        let mut w = Window { cwnd: 150.0, ssthresh: f64::INFINITY };
        limited_slow_start(&mut w, 3.0, 100.0);
        assert!((w.cwnd - 151.0).abs() < 1e-12, "K = 3: three ACKs add one segment, got {}", w.cwnd);
        let mut w = Window { cwnd: 120.0, ssthresh: 120.2 };
        assert_eq!(limited_slow_start(&mut w, 2.0, 100.0), 1.0);
        assert_eq!(w.cwnd, 120.2);
    }
}
