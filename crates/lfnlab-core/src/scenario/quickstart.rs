//! Quick-Start keys (spec 02): defaults and checks of a flow's `quickstart`
//! table (sender §2.3.1, receiver §2.4) and of an interface's (router
//! function §2.5.1), and the typed configurations the simulator builds from.

use super::model::{QsFlowSpec, QsProcSpec, QsRouterSpec};
use crate::net::proc_stage::ProcDiscipline;
use crate::quickstart::receiver::RecvRwndPolicy;
use super::resolve::Ctx;
use super::units::TimeSpan;
use crate::engine::time::Span;
use crate::error::InputError;
use crate::quickstart::rate::{code_ceil, code_floor, MAX_RATE_CODE};
use crate::quickstart::router_config::{
    Admission, DenyAction, ProcCost, RouterConfig, UtilEstimator, PEAK_SAMPLES_DEFAULT, PEAK_SAMPLES_MAX, PEAK_SAMPLES_MIN, PEAK_SAMPLE_DEFAULT,
};
use crate::quickstart::sender::{QsSenderConfig, SsthreshPolicy};

/// spec 02 §2.3.1 sender defaults.
const RATE_CODE: u8 = 7;
const HZ: u32 = 1000;
const CHUNK_MIN: u32 = 3;
const SYN_RTO: Span = Span::from_secs(3);
/// RFC 3742 max_ssthresh of the limited-slow-start option (spec 02 §2.3.1).
const MAX_SSTHRESH: u32 = 100;
/// A metering interval below 1 ms or above 1 h is a typo, not an experiment.
const METER_INTERVAL_RANGE_MS: (u64, u64) = (1, 3_600_000);
/// Largest history ring (K): the bookkeeping is per slot, so keep it small.
const MAX_RING_SLOTS: u32 = 1000;

/// Fill in and check a flow's `quickstart` table. `header_bytes` is the IP +
/// TCP header (options included) of a full data segment of this flow.
pub fn resolve_flow_qs(q: &mut QsFlowSpec, header_bytes: u32, at: &str, ctx: &Ctx) -> Result<(), InputError> {
    let key = |k: &str| format!("{at}.{k}");
    match (q.rate, q.rate_code) {
        (Some(_), Some(_)) => {
            return Err(ctx.err(key("rate_code"), "give either `rate` or `rate_code`, not both"));
        }
        (Some(r), None) => {
            if requested_code(q) == 0 {
                return Err(ctx.err(key("rate"), format!("expected at least 80kbps (Quick-Start rate code 1), got {r}")));
            }
        }
        (None, Some(c)) if !(1..=MAX_RATE_CODE).contains(&c) => {
            return Err(ctx.err(key("rate_code"), format!("expected a rate code from 1 to {MAX_RATE_CODE}, got {c}")));
        }
        (None, Some(_)) => {}
        (None, None) => q.rate_code = Some(RATE_CODE),
    }
    q.round_up.get_or_insert(false);
    q.on_connect.get_or_insert(true);
    q.on_idle_restart.get_or_insert(true);
    let times = q.request_at.get_or_insert_with(Vec::new);
    if times.windows(2).any(|w| w[1] <= w[0]) {
        return Err(ctx.err(key("request_at"), "expected times in increasing order"));
    }
    let h = *q.header_bytes.get_or_insert(header_bytes);
    if !(20..=120).contains(&h) {
        return Err(ctx.err(key("header_bytes"), format!("expected an IP + TCP header size from 20 to 120 bytes, got {h}")));
    }
    let hz = *q.hz.get_or_insert(HZ);
    if !(1..=1_000_000).contains(&hz) {
        return Err(ctx.err(key("hz"), format!("expected a timer rate from 1 to 1000000 Hz, got {hz}")));
    }
    let m = *q.chunk_min.get_or_insert(CHUNK_MIN);
    if m == 0 {
        return Err(ctx.err(key("chunk_min"), "expected at least 1 segment per pacing timer"));
    }
    let policy = q.ssthresh_policy.get_or_insert_with(|| "none".into());
    if policy.parse::<SsthreshPolicy>().is_err() {
        return Err(ctx.err(key("ssthresh_policy"), format!("expected one of {}, got \"{policy}\"", SsthreshPolicy::NAMES.join(", "))));
    }
    let f = *q.ssthresh_factor.get_or_insert(1.0);
    if !(f.is_finite() && f > 0.0) {
        return Err(ctx.err(key("ssthresh_factor"), format!("expected a positive number, got {f}")));
    }
    let rto = *q.syn_rto.get_or_insert(TimeSpan::from_span(SYN_RTO));
    if rto.ps() == 0 {
        return Err(ctx.err(key("syn_rto"), "the SYN timeout must be greater than zero"));
    }
    let max = *q.recv_max_rate_code.get_or_insert(MAX_RATE_CODE);
    if !(1..=MAX_RATE_CODE).contains(&max) {
        return Err(ctx.err(key("recv_max_rate_code"), format!("expected a rate code from 1 to {MAX_RATE_CODE}, got {max}")));
    }
    q.immediate_ack.get_or_insert(true);
    let rwnd = q.recv_rwnd_policy.get_or_insert_with(|| "full_buffer".into()).clone();
    check_name::<RecvRwndPolicy>(&rwnd, RecvRwndPolicy::NAMES, key("recv_rwnd_policy"), ctx)?;
    q.limited_slow_start.get_or_insert(false);
    let m = *q.max_ssthresh.get_or_insert(MAX_SSTHRESH);
    if m < 2 {
        return Err(ctx.err(key("max_ssthresh"), format!("expected at least 2 segments, got {m}")));
    }
    Ok(())
}

/// The requested rate code: `rate` converted with `code_floor` (`round_up`:
/// `code_ceil`, spec 02 §2.3.1), else `rate_code`.
fn requested_code(q: &QsFlowSpec) -> u8 {
    match (q.rate, q.rate_code) {
        (Some(r), _) if q.round_up == Some(true) => code_ceil(r.bps as f64),
        (Some(r), _) => code_floor(r.bps as f64),
        (None, c) => c.unwrap_or(RATE_CODE),
    }
}

/// The sender/receiver configuration of a resolved flow table.
pub fn flow_qs_config(q: &QsFlowSpec) -> QsSenderConfig {
    QsSenderConfig {
        rate_code: requested_code(q),
        on_connect: q.on_connect.unwrap_or(true),
        on_idle_restart: q.on_idle_restart.unwrap_or(true),
        request_at: q.request_at.iter().flatten().map(|t| t.span).collect(),
        header_bytes: q.header_bytes.unwrap_or(52),
        hz: q.hz.unwrap_or(HZ),
        chunk_min: q.chunk_min.unwrap_or(CHUNK_MIN),
        ssthresh_policy: q.ssthresh_policy.as_deref().and_then(|p| p.parse().ok()).unwrap_or(SsthreshPolicy::None),
        ssthresh_factor: q.ssthresh_factor.unwrap_or(1.0),
        syn_rto: q.syn_rto.map_or(SYN_RTO, |t| t.span),
        recv_max_rate_code: q.recv_max_rate_code.unwrap_or(MAX_RATE_CODE),
        immediate_ack: q.immediate_ack.unwrap_or(true),
        recv_rwnd_policy: q.recv_rwnd_policy.as_deref().and_then(|p| p.parse().ok()).unwrap_or_default(),
        limited_slow_start: (q.limited_slow_start == Some(true)).then(|| q.max_ssthresh.unwrap_or(MAX_SSTHRESH) as f64),
    }
}

fn check_name<T: std::str::FromStr>(v: &str, names: &[&str], key: String, ctx: &Ctx) -> Result<(), InputError> {
    if v.parse::<T>().is_err() {
        return Err(ctx.err(key, format!("expected one of {}, got \"{v}\"", names.join(", "))));
    }
    Ok(())
}

/// Fill in and check an interface's `quickstart` table.
pub fn resolve_router_qs(q: &mut QsRouterSpec, at: &str, ctx: &Ctx) -> Result<(), InputError> {
    let key = |k: &str| format!("{at}.{k}");
    match q.capacity {
        None => {
            return Err(ctx.err(key("capacity"), "missing required key: the capacity admission control uses, such as \"10Mbps\" (spec 02 §2.5.1: no auto-detection)"));
        }
        Some(c) if c.bps == 0 => return Err(ctx.err(key("capacity"), "the capacity must be greater than zero")),
        Some(_) => {}
    }
    let d = *q.meter_interval.get_or_insert(TimeSpan::from_span(RouterConfig::new(1).meter_interval));
    let (lo, hi) = METER_INTERVAL_RANGE_MS;
    if d.span < Span::from_ms(lo) || d.span > Span::from_ms(hi) {
        return Err(ctx.err(key("meter_interval"), format!("expected a metering interval from 1ms to 1h, got {d}")));
    }
    let k = *q.ring_slots.get_or_insert(RouterConfig::new(1).ring_slots);
    if !(1..=MAX_RING_SLOTS).contains(&k) {
        return Err(ctx.err(key("ring_slots"), format!("expected 1 to {MAX_RING_SLOTS} history slots, got {k}")));
    }
    let th = *q.thresh.get_or_insert(1.0);
    if !(th.is_finite() && th > 0.0 && th <= 1.0) {
        return Err(ctx.err(key("thresh"), format!("expected a fraction of the capacity in (0, 1], got {th}")));
    }
    let adm = q.admission.get_or_insert_with(|| "target_reduce".into()).clone();
    check_name::<Admission>(&adm, Admission::NAMES, key("admission"), ctx)?;
    let est = q.util_estimator.get_or_insert_with(|| "last_interval".into()).clone();
    match est.as_str() {
        "last_interval" => {
            if q.peak_sample.is_some() || q.peak_samples.is_some() {
                let k = if q.peak_sample.is_some() { "peak_sample" } else { "peak_samples" };
                return Err(ctx.err(key(k), format!("`{k}` belongs to util_estimator = \"peak\"")));
            }
        }
        "peak" => {
            let s = *q.peak_sample.get_or_insert(TimeSpan::from_span(PEAK_SAMPLE_DEFAULT));
            if s.ps() == 0 {
                return Err(ctx.err(key("peak_sample"), "the sample length must be greater than zero"));
            }
            let p = *q.peak_samples.get_or_insert(PEAK_SAMPLES_DEFAULT);
            if !(PEAK_SAMPLES_MIN..=PEAK_SAMPLES_MAX).contains(&p) {
                return Err(ctx.err(key("peak_samples"), format!("expected {PEAK_SAMPLES_MIN} to {PEAK_SAMPLES_MAX} samples, got {p}")));
            }
        }
        other => return Err(ctx.err(key("util_estimator"), format!("expected one of last_interval, peak, got \"{other}\""))),
    }
    let deny = q.deny_action.get_or_insert_with(|| "zero".into()).clone();
    check_name::<DenyAction>(&deny, DenyAction::NAMES, key("deny_action"), ctx)?;
    if q.max_requests_per_s == Some(0) {
        return Err(ctx.err(key("max_requests_per_s"), "expected at least 1 request per second (omit the key for no limit)"));
    }
    let phase = *q.meter_phase.get_or_insert(TimeSpan::ZERO);
    if phase.span >= d.span {
        return Err(ctx.err(key("meter_phase"), format!("expected an offset below the metering interval ({d}), got {phase}")));
    }
    let proc = q.proc.get_or_insert_with(QsProcSpec::default);
    for (name, v) in [
        ("base_us", &mut proc.base_us),
        ("meter_us", &mut proc.meter_us),
        ("opt_parse_us", &mut proc.opt_parse_us),
        ("update_us", &mut proc.update_us),
        ("nonce_field_us", &mut proc.nonce_field_us),
    ] {
        let x = *v.get_or_insert(0.0);
        if !(x.is_finite() && (0.0..=1e6).contains(&x)) {
            return Err(ctx.err(key(&format!("proc.{name}")), format!("expected a cost from 0 to 1e6 µs, got {x}")));
        }
    }
    let disc = proc.discipline.get_or_insert_with(|| "serial".into()).clone();
    check_name::<ProcDiscipline>(&disc, ProcDiscipline::NAMES, key("proc.discipline"), ctx)?;
    Ok(())
}

/// Processing costs apply at forwarding nodes only (spec 02 §2.5.7 CHOICE:
/// an end host's own CPU cost belongs to the host model of spec 04): a host
/// interface with a non-zero `proc` cost is an input error, never ignored.
pub fn check_proc_at_host(q: &QsRouterSpec, at: &str, node: &str, ctx: &Ctx) -> Result<(), InputError> {
    if !router_qs_config(q).proc.is_zero() {
        return Err(ctx.err(
            format!("{at}.proc"),
            format!("\"{node}\" is a host: processing costs apply at forwarding nodes only (spec 02 §2.5.7, CHOICE); remove the costs or move them to a router interface"),
        ));
    }
    Ok(())
}

/// The router configuration of a resolved interface table.
pub fn router_qs_config(q: &QsRouterSpec) -> RouterConfig {
    let mut cfg = RouterConfig::new(q.capacity.map_or(0, |c| c.bps));
    if let Some(d) = q.meter_interval {
        cfg.meter_interval = d.span;
    }
    if let Some(k) = q.ring_slots {
        cfg.ring_slots = k;
    }
    if let Some(t) = q.thresh {
        cfg.thresh = t;
    }
    if let Some(a) = q.admission.as_deref().and_then(|a| a.parse().ok()) {
        cfg.admission = a;
    }
    if q.util_estimator.as_deref() == Some("peak") {
        cfg.util_estimator = UtilEstimator::Peak {
            sample: q.peak_sample.map_or(PEAK_SAMPLE_DEFAULT, |s| s.span),
            samples: q.peak_samples.unwrap_or(PEAK_SAMPLES_DEFAULT),
        };
    }
    if let Some(d) = q.deny_action.as_deref().and_then(|d| d.parse().ok()) {
        cfg.deny_action = d;
    }
    cfg.max_requests_per_s = q.max_requests_per_s;
    cfg.meter_phase = q.meter_phase.map_or(Span::ZERO, |p| p.span);
    if let Some(p) = &q.proc {
        cfg.proc = ProcCost {
            base_us: p.base_us.unwrap_or(0.0),
            meter_us: p.meter_us.unwrap_or(0.0),
            opt_parse_us: p.opt_parse_us.unwrap_or(0.0),
            update_us: p.update_us.unwrap_or(0.0),
            nonce_field_us: p.nonce_field_us.unwrap_or(0.0),
            discipline: p.discipline.as_deref().and_then(|d| d.parse().ok()).unwrap_or_default(),
        };
    }
    cfg
}
