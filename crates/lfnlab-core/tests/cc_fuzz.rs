//! Every registered congestion control under random event sequences
//! (STYLE point 9 (d), s2n-quic style): ACKs, losses, timeouts, local stalls
//! and idle restarts, driven through the spec 06 §4.1 hooks the way the
//! socket core drives them, under each host profile.
//!
//! Invariants on what the algorithm itself produces, before the core applies
//! the spec 06 §2.1 bounds: cwnd is finite and ≥ 0 after every hook; the
//! `ssthresh` hook returns ≥ 2 or +∞ (BBR: "ssthresh stays ∞"), never NaN; a
//! written ssthresh is not NaN and not negative; trace values and pacing rates
//! are well-formed. The core's own bounds (cwnd ≥ 1, ssthresh ≥ 2) are then
//! applied exactly as the socket does.
//!
//! Algorithms are taken from `ALGORITHMS`, so newly registered ones are
//! covered without editing this file. proptest prints the shrunk failing
//! sequence and stores its seed in `proptest-regressions/`.

use lfnlab_core::engine::time::{SimTime, Span};
use lfnlab_core::host::cc::reno::Basis;
use lfnlab_core::host::tcp::sender::slow_start;
use lfnlab_core::host::cc::{
    ALGORITHMS, AckSample, CaState, CcContext, CcEvent, CcParams, CongestionControl, CreateCtx, RateSample, RoundStats, SsthreshReason, Window, resolve_params,
};
use proptest::prelude::*;

const PROFILES: [&str; 3] = ["linux-2.4", "linux-2.6", "linux-modern"];
const MSS: u32 = 1448;

/// What the socket core does differently per profile (spec 06 §2.1 table).
#[derive(Clone, Copy, Debug)]
struct Profile {
    /// `abc_l`; ∞ under `linux-modern`.
    l: f64,
    /// Slow start while cwnd ≤ ssthresh (2.4, 2.6) or cwnd < ssthresh (modern).
    ss_le: bool,
    iw: f64,
    recovery: Recovery,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Recovery {
    /// Linux 2.6 rate halving: −1 every second ACK, exit min(cwnd, ssthresh).
    RateHalving,
    /// RFC 6937 PRR (simplified to pipe + 1 per ACK), exit ssthresh.
    Prr,
}

fn profile_rules(name: &str) -> Profile {
    match name {
        "linux-2.4" => Profile { l: 1.0, ss_le: true, iw: 2.0, recovery: Recovery::RateHalving },
        "linux-2.6" => Profile { l: 1.0, ss_le: true, iw: 3.0, recovery: Recovery::RateHalving },
        _ => Profile { l: f64::INFINITY, ss_le: false, iw: 10.0, recovery: Recovery::Prr },
    }
}

#[derive(Clone, Debug)]
struct Ack {
    acked: u64,
    /// Fraction of min(acked, L) left as CA credit when not in slow start
    /// (1.0 most of the time; lower values stand for cwnd-limited checks).
    credit_frac: f64,
    /// RTT sample in µs, if any.
    rtt_us: Option<u64>,
    in_flight: u64,
    dt_us: u64,
    round_end: bool,
    newly_lost: u64,
    app_limited: bool,
    rate: Option<(f64, u64, bool)>,
}

#[derive(Clone, Debug)]
enum Ev {
    Ack(Ack),
    /// Duplicate ACK / SACK: Open → Disorder; `cong_control` sees it with
    /// nothing cumulatively acknowledged.
    Dup { sacked: u64, dt_us: u64 },
    /// Fast retransmit: ssthresh(FastRetransmit), Recovery for `acks` ACKs.
    Loss { acks: u32 },
    /// Retransmission timeout: ssthresh(Rto) (unless backed off), cwnd 1, Loss.
    Rto { dt_ms: u64, acks: u32 },
    /// IFQ full: ssthresh(LocalStall), CWR.
    Stall { acks: u32 },
    IdleRestart { idle_ms: u64 },
}

fn ack_strategy() -> impl Strategy<Value = Ack> {
    (
        1u64..=64,
        prop_oneof![4 => Just(1.0), 1 => 0.0f64..=1.0],
        prop::option::weighted(0.8, 1_000u64..=2_000_000),
        0u64..100_000,
        0u64..200_000,
        prop::bool::weighted(0.1),
        prop_oneof![9 => Just(0u64), 1 => 1u64..8],
        prop::bool::weighted(0.1),
        prop::option::weighted(0.5, (1e3f64..1.25e10, 1_000u64..=2_000_000, prop::bool::weighted(0.2))),
    )
        .prop_map(|(acked, credit_frac, rtt_us, in_flight, dt_us, round_end, newly_lost, app_limited, rate)| Ack {
            acked,
            credit_frac,
            rtt_us,
            in_flight,
            dt_us,
            round_end,
            newly_lost,
            app_limited,
            rate,
        })
}

fn ev_strategy() -> impl Strategy<Value = Ev> {
    prop_oneof![
        30 => ack_strategy().prop_map(Ev::Ack),
        3 => (1u64..8, 0u64..50_000).prop_map(|(sacked, dt_us)| Ev::Dup { sacked, dt_us }),
        2 => (0u32..20).prop_map(|acks| Ev::Loss { acks }),
        1 => (200u64..5_000, 0u32..20).prop_map(|(dt_ms, acks)| Ev::Rto { dt_ms, acks }),
        1 => (0u32..10).prop_map(|acks| Ev::Stall { acks }),
        1 => (1u64..20_000).prop_map(|idle_ms| Ev::IdleRestart { idle_ms }),
    ]
}

/// The emulated socket: just enough of spec 06 §2.4–2.8 to drive the hooks.
struct Socket {
    name: &'static str,
    profile: &'static str,
    p: Profile,
    cc: Box<dyn CongestionControl>,
    w: Window,
    state: CaState,
    /// ACKs left until Recovery, Loss or CWR ends.
    left: u32,
    now: SimTime,
    srtt: Option<Span>,
    min_rtt: Option<Span>,
    latest_rtt: Option<Span>,
    delivered: u64,
    rounds: u64,
    round: RoundStats,
    round_sum_ps: u128,
    rh_acks: u64,
    /// RTO backed off: the next timeout keeps ssthresh (spec 06 §2.5 RTO step 1).
    backed_off: bool,
}

impl Socket {
    fn ctx(&self, in_flight: u64, app_limited: bool) -> CcContext {
        CcContext {
            srtt: self.srtt,
            rttvar: self.srtt.map_or(Span::ZERO, |s| Span(s.0 / 4)),
            min_rtt: self.min_rtt,
            latest_rtt: self.latest_rtt,
            in_flight,
            packets_out: in_flight,
            flight_size: in_flight,
            delivered: self.delivered,
            ca_state: self.state,
            app_limited,
            rounds: self.rounds,
            iw_segments: self.p.iw as u32,
            ..CcContext::example(self.now)
        }
    }

    fn where_(&self, hook: &str) -> String {
        format!("{} under {} after {hook}: cwnd {}, ssthresh {}, state {:?}", self.name, self.profile, self.w.cwnd, self.w.ssthresh, self.state)
    }

    /// What the algorithm wrote must be sane; then the core's §2.1 bounds.
    fn check_and_bound(&mut self, hook: &str) {
        let w = self.w;
        assert!(w.cwnd.is_finite() && w.cwnd >= 0.0, "{}", self.where_(hook));
        assert!(!w.ssthresh.is_nan() && w.ssthresh >= 0.0, "{}", self.where_(hook));
        self.w.cwnd = self.w.cwnd.max(1.0);
        self.w.ssthresh = self.w.ssthresh.max(2.0);
        let mut vals = [0.0; 4];
        let n = self.cc.trace_names().len();
        assert!(n <= 4, "{}: at most 4 trace variables", self.name);
        self.cc.trace_values(&mut vals[..n]);
        assert!(vals[..n].iter().all(|v| !v.is_infinite()), "{}: trace values {:?}", self.where_(hook), &vals[..n]);
    }

    /// The `ssthresh` hook's own return value: ≥ 2 or +∞, never NaN.
    fn ask_ssthresh(&mut self, in_flight: u64, reason: SsthreshReason) {
        let ctx = self.ctx(in_flight, false);
        let ss = self.cc.ssthresh(&ctx, &self.w, reason);
        assert!(!ss.is_nan() && (ss >= 2.0 || ss == f64::INFINITY), "{}: ssthresh({reason:?}) returned {ss}", self.where_("ssthresh"));
        self.w.ssthresh = ss.max(2.0);
        self.check_and_bound("ssthresh");
    }

    fn set_state(&mut self, new: CaState) {
        if new != self.state {
            let old = self.state;
            self.state = new;
            let ctx = self.ctx(0, false);
            self.cc.on_state_change(&ctx, &mut self.w, old, new);
            self.check_and_bound("on_state_change");
        }
    }

    fn check_pacing(&self, in_flight: u64) {
        let ctx = self.ctx(in_flight, false);
        if let Some(r) = self.cc.pacing_rate(&ctx, &self.w) {
            assert!(r.is_finite() && r >= 0.0, "{}: pacing rate {r}", self.where_("pacing_rate"));
        }
    }

    fn in_slow_start(&self) -> bool {
        if self.p.ss_le { self.w.cwnd <= self.w.ssthresh } else { self.w.cwnd < self.w.ssthresh }
    }

    fn on_ack(&mut self, a: &Ack) {
        self.now += Span::from_us(a.dt_us);
        self.delivered += a.acked;
        self.backed_off = false;
        let rtt = a.rtt_us.map(Span::from_us);
        if let Some(r) = rtt {
            self.srtt = Some(self.srtt.map_or(r, |s| Span((s.0 / 8) * 7 + r.0 / 8)));
            self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
            self.latest_rtt = Some(r);
            self.round.min_rtt = Some(self.round.min_rtt.map_or(r, |m| m.min(r)));
            self.round_sum_ps += r.0 as u128;
            self.round.samples += 1;
            let ctx = self.ctx(a.in_flight, a.app_limited);
            self.cc.on_rtt_sample(&ctx, &mut self.w, r);
            self.check_and_bound("on_rtt_sample");
        }
        self.round.acked_segments += a.acked;
        if a.round_end {
            self.rounds += 1;
            let mut stats = self.round;
            stats.mean_rtt = (stats.samples > 0).then(|| Span((self.round_sum_ps / stats.samples as u128) as u64));
            self.round = RoundStats::default();
            self.round_sum_ps = 0;
            let ctx = self.ctx(a.in_flight, a.app_limited);
            self.cc.on_round_end(&ctx, &mut self.w, &stats);
            self.check_and_bound("on_round_end");
        }
        // Leaving Recovery, Loss and CWR once their ACK budget is spent.
        if matches!(self.state, CaState::Recovery | CaState::Loss | CaState::Cwr) {
            if self.left == 0 {
                if self.state == CaState::Recovery && !self.cc.has_cong_control() {
                    self.w.cwnd = match self.p.recovery {
                        Recovery::Prr => self.w.ssthresh,
                        Recovery::RateHalving => self.w.cwnd.min(self.w.ssthresh),
                    };
                }
                self.set_state(CaState::Open);
            } else {
                self.left -= 1;
            }
        } else if self.state == CaState::Disorder {
            self.set_state(CaState::Open);
        }
        let mut sample = AckSample {
            acked_segments: a.acked,
            acked_bytes: a.acked * MSS as u64,
            credit: 0.0,
            rtt,
            prior_in_flight: a.in_flight + a.acked,
            newly_delivered: a.acked,
            newly_lost: a.newly_lost,
            round_start: a.round_end,
            rate: a.rate.map(|(rate, interval_us, app)| RateSample {
                delivery_rate_bytes_per_s: rate,
                interval: Span::from_us(interval_us),
                delivered: (rate * interval_us as f64 * 1e-6 / MSS as f64) as u64,
                prior_delivered: self.delivered.saturating_sub(a.acked),
                is_app_limited: app,
            }),
        };
        let ctx = self.ctx(a.in_flight, a.app_limited);
        if self.cc.has_cong_control() {
            self.cc.cong_control(&ctx, &mut self.w, &sample);
            self.check_and_bound("cong_control");
        } else {
            match self.state {
                CaState::Recovery => match self.p.recovery {
                    Recovery::RateHalving => {
                        self.rh_acks += 1;
                        if self.rh_acks.is_multiple_of(2) && self.w.cwnd > self.w.ssthresh {
                            self.w.cwnd -= 1.0;
                        }
                        self.w.cwnd = self.w.cwnd.min((a.in_flight + 1) as f64);
                    }
                    Recovery::Prr => self.w.cwnd = (a.in_flight + 1) as f64,
                },
                CaState::Cwr => {}
                CaState::Open | CaState::Disorder | CaState::Loss => {
                    // Slow start, then the rest as CA credit (spec 06 §2.4).
                    let mut credit = (a.acked as f64).min(self.p.l) * a.credit_frac;
                    if self.in_slow_start() {
                        credit = slow_start(&mut self.w, credit, self.p.l);
                    }
                    if credit > 0.0 && self.state != CaState::Loss {
                        sample.credit = credit;
                        self.cc.on_ack(&ctx, &mut self.w, &sample);
                        self.check_and_bound("on_ack");
                    } else {
                        self.w.cwnd += credit;
                    }
                }
            }
            self.check_and_bound("core growth");
        }
        self.check_pacing(a.in_flight);
    }

    fn step(&mut self, ev: &Ev) {
        match ev {
            Ev::Ack(a) => self.on_ack(a),
            Ev::Dup { sacked, dt_us } => {
                self.now += Span::from_us(*dt_us);
                self.delivered += sacked;
                if self.state == CaState::Open {
                    self.set_state(CaState::Disorder);
                }
                if self.cc.has_cong_control() {
                    let a = AckSample { acked_segments: 0, acked_bytes: 0, credit: 0.0, newly_delivered: *sacked, ..AckSample::example(0, MSS) };
                    let ctx = self.ctx(50, false);
                    self.cc.cong_control(&ctx, &mut self.w, &a);
                    self.check_and_bound("cong_control (dup)");
                }
                self.check_pacing(50);
            }
            Ev::Loss { acks } => {
                if matches!(self.state, CaState::Open | CaState::Disorder | CaState::Cwr) {
                    let in_flight = self.w.cwnd as u64;
                    self.ask_ssthresh(in_flight, SsthreshReason::FastRetransmit);
                    if !self.cc.has_cong_control() {
                        if self.p.recovery == Recovery::RateHalving {
                            self.rh_acks = 0;
                        }
                    }
                    self.left = *acks;
                    self.set_state(CaState::Recovery);
                }
            }
            Ev::Rto { dt_ms, acks } => {
                self.now += Span::from_ms(*dt_ms);
                if !self.backed_off {
                    let in_flight = self.w.cwnd as u64;
                    self.ask_ssthresh(in_flight, SsthreshReason::Rto);
                }
                self.w.cwnd = 1.0;
                self.left = *acks;
                self.set_state(CaState::Loss);
                let ctx = self.ctx(0, false);
                self.cc.on_rto(&ctx, &mut self.w);
                self.check_and_bound("on_rto");
                self.backed_off = true;
            }
            Ev::Stall { acks } => {
                if matches!(self.state, CaState::Open | CaState::Disorder) && !self.cc.has_cong_control() {
                    let in_flight = self.w.cwnd as u64;
                    self.ask_ssthresh(in_flight, SsthreshReason::LocalStall);
                    self.w.cwnd = self.w.cwnd.min(self.w.ssthresh);
                    self.left = *acks;
                    self.set_state(CaState::Cwr);
                }
            }
            Ev::IdleRestart { idle_ms } => {
                // `linux` idle restart (spec 06 §2.7), RTO taken as 1 s.
                let idle = Span::from_ms(*idle_ms);
                self.now += idle;
                let floor = self.p.iw.min(self.w.cwnd);
                self.w.ssthresh = self.w.ssthresh.max((0.75 * self.w.cwnd).floor());
                for _ in 0..idle_ms / 1000 {
                    self.w.cwnd = (self.w.cwnd / 2.0).max(floor);
                }
                self.check_and_bound("idle restart (core)");
                let ctx = self.ctx(0, false);
                self.cc.on_event(&ctx, &mut self.w, CcEvent::IdleRestart { idle });
                self.check_and_bound("on_event(IdleRestart)");
            }
        }
    }
}

fn run(events: &[Ev], seed: u64, flight_basis: bool) {
    for alg in ALGORITHMS {
        for profile in PROFILES {
            let params = resolve_params(alg.name, profile, &CcParams::new()).unwrap_or_else(|e| panic!("{}: {e:?}", alg.name));
            let basis = if flight_basis { Basis::FlightSize } else { Basis::Cwnd };
            let cc = (alg.create)(&params, &CreateCtx { basis, seed });
            let p = profile_rules(profile);
            let mut s = Socket {
                name: alg.name,
                profile,
                p,
                cc,
                w: Window { cwnd: p.iw, ssthresh: f64::INFINITY },
                state: CaState::Open,
                left: 0,
                now: SimTime(0),
                srtt: None,
                min_rtt: None,
                latest_rtt: None,
                delivered: 0,
                rounds: 0,
                round: RoundStats::default(),
                round_sum_ps: 0,
                rh_acks: 0,
                backed_off: false,
            };
            let ctx = s.ctx(0, false);
            s.cc.init(&ctx, &mut s.w);
            s.check_and_bound("init");
            let ctx = s.ctx(0, false);
            s.cc.on_event(&ctx, &mut s.w, CcEvent::TxStart);
            s.check_and_bound("on_event(TxStart)");
            for ev in events {
                s.step(ev);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn hooks_keep_cwnd_and_ssthresh_sane(
        events in prop::collection::vec(ev_strategy(), 1..300),
        seed in any::<u64>(),
        flight_basis in prop::bool::weighted(0.2),
    ) {
        run(&events, seed, flight_basis);
    }
}

/// A long lossless run must not overflow anything: 300 rounds of full-window
/// ACKs from IW, with a loss every 50 rounds.
#[test]
fn long_growth_stays_finite() {
    let mut events = Vec::new();
    for i in 0..3000 {
        events.push(Ev::Ack(Ack {
            acked: 64,
            credit_frac: 1.0,
            rtt_us: Some(100_000),
            in_flight: 100_000,
            dt_us: 1_000,
            round_end: i % 10 == 0,
            newly_lost: 0,
            app_limited: false,
            rate: Some((1.25e9, 100_000, false)),
        }));
        if i % 500 == 499 {
            events.push(Ev::Loss { acks: 5 });
        }
    }
    run(&events, 7, false);
}
