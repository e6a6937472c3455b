//! The Quick-Start interface function ("router function", spec 02 §2.5): it
//! meters every packet leaving an egress, runs the target algorithm on Rate
//! Requests, rewrites the option and keeps the approval ring. Sans-IO: the
//! caller passes `now` and the option bytes; the router owns only its state
//! and its own random stream (spec 02 §2.5.5: nodes draw from their own PRNG).

use crate::engine::rng::Stream;
use crate::engine::time::{PS_PER_S, SimTime, Span};

use super::meter::{ApprovalRing, Meter};
use super::nonce::rerandomize;
use super::option::{IpQs, write_nonce, write_qs_ttl, write_rate};
use super::rate::{code_floor, rate_bps};
use super::router_config::{Admission, DenyAction, RouterConfig};

/// Work counters of one interface (spec 02 §2.5.7).
///
/// Identities: `qs_requests_seen` equals `qs_approved_full` plus
/// `qs_approved_reduced` plus `qs_denied` plus the requests with rate 0 (which
/// are not evaluated); `qs_rate_limited` ≤ `qs_denied`; `meter_updates` = `packets`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct RouterCounters {
    /// Packets that left through the interface.
    pub packets: u64,
    /// Their IP total lengths as they left (after a `delete`, 8 bytes less), bytes.
    pub bytes: u64,
    /// Rate Requests seen (Function 0000), including rate 0 and rate-limited ones.
    pub qs_requests_seen: u64,
    /// Requests approved at the requested rate.
    pub qs_approved_full: u64,
    /// Requests approved at a lower rate.
    pub qs_approved_reduced: u64,
    /// Requests refused, by admission or by the request-rate limit.
    pub qs_denied: u64,
    /// Requests refused without evaluation by `max_requests_per_s` (also in `qs_denied`).
    pub qs_rate_limited: u64,
    /// 2-bit nonce fields replaced: Σ (N_req − N_app) over reduced approvals.
    pub nonce_fields_rerandomized: u64,
    /// Packets whose option this node modified (each needs one IP checksum
    /// update): approval with d > 0, every reduced approval, every denial.
    pub ip_csum_updates: u64,
    /// Reports of Approved Rate seen (Function 1000); never modified.
    pub qs_reports_seen: u64,
    /// Meter counter updates: one per packet (every packet is metered).
    pub meter_updates: u64,
}

/// What the interface function did with a packet's Quick-Start option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The packet carries no Quick-Start option.
    NoOption,
    /// A report, an option with a reserved Function or malformed length, or a
    /// request with rate 0: forwarded unchanged.
    Passed,
    /// The request was approved at `n_app` (≤ `n_req`; equal for a full approval).
    Approved {
        /// Requested rate code.
        n_req: u8,
        /// Approved rate code, 1..=`n_req`.
        n_app: u8,
    },
    /// The request was refused (admission or rate limit); `deny_action` applied.
    Denied {
        /// Requested rate code.
        n_req: u8,
    },
}

/// The result of [`QsRouter::on_packet`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RouterOutcome {
    /// What happened to the option.
    pub verdict: Verdict,
    /// The option was removed (`deny_action = delete`): the caller removes
    /// [`super::option::OPT_BYTES`] from the IP total length (IHL − 2).
    pub option_deleted: bool,
    /// Processing delay to add before enqueueing (spec 02 §2.5.7; 0 by default).
    pub proc_delay: Span,
}

/// The Quick-Start function of one egress interface (spec 02 §2.5).
pub struct QsRouter {
    /// Parameters (spec 02 §2.5.1).
    cfg: RouterConfig,
    /// Utilization meter (spec 02 §2.5.2).
    meter: Meter,
    /// Approval ring (spec 02 §2.5.3).
    ring: ApprovalRing,
    /// The node's own random stream for nonce re-randomization.
    rng: Stream,
    /// Work counters (spec 02 §2.5.7).
    counters: RouterCounters,
    /// Index of the current 1-second request-limit window (aligned to time 0).
    limit_window: u64,
    /// Requests with rate > 0 seen in that window.
    limit_count: u32,
}

impl QsRouter {
    /// A router with empty meter and ring. `cfg` should have passed
    /// [`RouterConfig::validate`]; degenerate values (D = 0, K = 0) are read as
    /// their smallest meaningful value instead of panicking.
    pub fn new(cfg: RouterConfig, rng: Stream) -> QsRouter {
        QsRouter {
            meter: Meter::new(&cfg),
            ring: ApprovalRing::new(cfg.meter_interval, cfg.meter_phase, cfg.ring_slots),
            cfg,
            rng,
            counters: RouterCounters::default(),
            limit_window: 0,
            limit_count: 0,
        }
    }

    /// One packet leaves through this interface at `now` (spec 02 §2.5.2–§2.5.5).
    ///
    /// `l3_bytes`: its IP total length (option bytes included). `opt`: the raw IP
    /// Quick-Start option bytes of the packet (all zero = none); rewritten in
    /// place on approve (QS TTL −= d), reduce (rate, QS TTL, nonce fields) and
    /// deny-`zero` (rate, QS TTL, nonce := 0; Function and reserved bits kept);
    /// on deny-`delete` it is set to all zero and `option_deleted` is true.
    /// `ttl_decrement`: d of §2.5.5, 1 at a routing hop, 0 at the originating
    /// host's own egress.
    ///
    /// The packet is metered with the length it leaves with (`l3_bytes` − 8
    /// after a delete); admission only reads completed intervals, so metering it
    /// before or after the decision makes no difference.
    pub fn on_packet(&mut self, now: SimTime, l3_bytes: u32, opt: &mut [u8; 8], ttl_decrement: u8) -> RouterOutcome {
        self.advance(now);
        let mut outcome = RouterOutcome { verdict: Verdict::NoOption, option_deleted: false, proc_delay: Span::ZERO };
        let mut reduced_fields = 0u8;
        if let Some(parsed) = IpQs::decode(opt) {
            outcome.verdict = match parsed {
                IpQs::Report { .. } => {
                    self.counters.qs_reports_seen += 1;
                    Verdict::Passed
                }
                IpQs::Other { .. } => Verdict::Passed,
                IpQs::Request { rate: 0, .. } => {
                    // Rate 0 is no request (spec 02 §2.4 rule 2): not evaluated.
                    self.counters.qs_requests_seen += 1;
                    Verdict::Passed
                }
                IpQs::Request { rate: n_req, qs_ttl, nonce } => {
                    self.counters.qs_requests_seen += 1;
                    let n_app = if self.within_request_limit(now) {
                        self.admit(now, n_req)
                    } else {
                        self.counters.qs_rate_limited += 1;
                        0
                    };
                    if n_app == 0 {
                        outcome.option_deleted = self.deny(opt);
                        Verdict::Denied { n_req }
                    } else {
                        reduced_fields = self.approve(opt, n_req, n_app, qs_ttl, nonce, ttl_decrement);
                        Verdict::Approved { n_req, n_app }
                    }
                }
            };
        }
        let out_bytes = if outcome.option_deleted { l3_bytes.saturating_sub(super::option::OPT_BYTES) } else { l3_bytes };
        self.meter.add(out_bytes as u64);
        self.counters.packets += 1;
        self.counters.bytes += out_bytes as u64;
        self.counters.meter_updates += 1;
        outcome.proc_delay = self.proc_delay(&outcome.verdict, reduced_fields);
        outcome
    }

    /// The target algorithm alone (spec 02 §2.5.4): N_app for a request of
    /// `n_req` (0 = deny); when N_app ≥ 1, Rate(N_app) is added to the current
    /// ring slot. Touches neither counters nor the request-rate limit.
    pub fn admit(&mut self, now: SimTime, n_req: u8) -> u8 {
        self.advance(now);
        let r_req = rate_bps(n_req) as f64;
        let util_bps = self.meter.measured_rate_bps() + self.ring.sum_bps() as f64;
        let budget = self.cfg.thresh * self.cfg.capacity_bps as f64 - util_bps;
        let grant = match self.cfg.admission {
            Admission::TargetStrict => {
                if r_req <= budget {
                    r_req
                } else {
                    0.0
                }
            }
            Admission::TargetReduce => {
                if budget > 0.0 {
                    r_req.min(budget)
                } else {
                    0.0
                }
            }
        };
        // grant ≤ r_req, so N_app ≤ N_req (the min also covers codes above 15).
        let n_app = code_floor(grant).min(n_req);
        if n_app >= 1 {
            self.ring.add(rate_bps(n_app));
        }
        n_app
    }

    /// R_meas at `now` per the configured estimator, bit/s (spec 02 §2.5.2).
    pub fn measured_rate_bps(&mut self, now: SimTime) -> f64 {
        self.advance(now);
        self.meter.measured_rate_bps()
    }

    /// R_recent at `now`: the sum of the ring slots, bit/s (spec 02 §2.5.3).
    pub fn recent_approved_bps(&mut self, now: SimTime) -> f64 {
        self.advance(now);
        self.ring.sum_bps() as f64
    }

    /// The work counters so far.
    pub fn counters(&self) -> RouterCounters {
        self.counters
    }

    /// The configuration this router runs with.
    pub fn config(&self) -> &RouterConfig {
        &self.cfg
    }

    /// Rolls meter and ring forward to `now` (lazy: no timer events).
    fn advance(&mut self, now: SimTime) {
        self.meter.advance(now);
        self.ring.advance(now);
    }

    /// Counts a request with rate > 0 against `max_requests_per_s`; false when
    /// it is beyond the limit of the current 1-second window (aligned to 0).
    fn within_request_limit(&mut self, now: SimTime) -> bool {
        let Some(limit) = self.cfg.max_requests_per_s else {
            return true;
        };
        let window = now.ps() / PS_PER_S;
        if window != self.limit_window {
            self.limit_window = window;
            self.limit_count = 0;
        }
        self.limit_count = self.limit_count.saturating_add(1);
        self.limit_count <= limit
    }

    /// Applies an approval to the option (spec 02 §2.5.5); returns the number of
    /// re-randomized nonce fields (N_req − N_app).
    fn approve(&mut self, opt: &mut [u8; 8], n_req: u8, n_app: u8, qs_ttl: u8, nonce: u32, d: u8) -> u8 {
        let reduced_fields = n_req - n_app;
        if d > 0 {
            write_qs_ttl(opt, qs_ttl.wrapping_sub(d));
        }
        if reduced_fields == 0 {
            self.counters.qs_approved_full += 1;
        } else {
            write_rate(opt, n_app);
            write_nonce(opt, rerandomize(nonce, n_req, n_app, &mut self.rng));
            self.counters.qs_approved_reduced += 1;
            self.counters.nonce_fields_rerandomized += reduced_fields as u64;
        }
        if d > 0 || reduced_fields > 0 {
            self.counters.ip_csum_updates += 1;
        }
        reduced_fields
    }

    /// Applies `deny_action` (spec 02 §2.5.5); returns true if the option was deleted.
    fn deny(&mut self, opt: &mut [u8; 8]) -> bool {
        self.counters.qs_denied += 1;
        self.counters.ip_csum_updates += 1;
        match self.cfg.deny_action {
            DenyAction::Zero => {
                write_rate(opt, 0);
                write_qs_ttl(opt, 0);
                write_nonce(opt, 0);
                false
            }
            DenyAction::Delete => {
                *opt = [0; 8];
                true
            }
        }
    }

    /// d_proc of spec 02 §2.5.7 for one packet.
    fn proc_delay(&self, verdict: &Verdict, reduced_fields: u8) -> Span {
        let p = &self.cfg.proc;
        if p.is_zero() {
            return Span::ZERO;
        }
        let mut us = p.base_us + p.meter_us;
        if *verdict != Verdict::NoOption {
            us += p.opt_parse_us;
        }
        if let Verdict::Approved { .. } = verdict {
            us += p.update_us + reduced_fields as f64 * p.nonce_field_us;
        }
        Span::from_secs_f64(us * 1e-6)
    }
}

#[cfg(test)]
#[path = "router_tests.rs"]
mod tests;
