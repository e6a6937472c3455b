//! The `burst_red` link queue (spec 03 §2.8): defaults and checks of its keys,
//! and the typed configuration the simulator builds it from.

use crate::scenario::model::QueueSpec;
use crate::scenario::resolve::Ctx;
use crate::scenario::units::{ByteSize, TimeSpan};
use crate::engine::time::Span;
use crate::error::InputError;
use crate::net::burst_red::{red_theta, BurstRedConfig, RedConfig};

/// spec 03 §2.8 defaults (paper: base loss, halving period, θ at the ends;
/// CHOICE: max_p, w_q).
const BASE_LOSS: f64 = 1e-5;
const HALVING_PERIOD: Span = Span::from_ms(1);
const THETA_LOW_LATENCY: f64 = 0.99;
const THETA_HIGH_LATENCY: f64 = 0.50;
const RED_MAX_P: f64 = 0.1;
const RED_W_Q: f64 = 0.002;
/// CHOICE: RED's idle correction counts idle time in transmissions of a full
/// 1518-byte frame at the segment rate.
const RED_IDLE_FRAME_BYTES: u64 = 1518;

/// The rate and delay of the link direction a queue feeds.
#[derive(Clone, Copy, Debug)]
pub struct Segment {
    pub rate_bps: u64,
    pub delay: TimeSpan,
}

impl Segment {
    /// BufferSize_n = b_n/8 × L_n bytes (spec 03 §2.8).
    fn bdp_bytes(self) -> u64 {
        (self.rate_bps as u128 * self.delay.ps() as u128 / 8 / 1_000_000_000_000) as u64
    }
}

/// The keys only `kind = "burst_red"` takes, and whether `q` sets each.
fn burst_red_keys(q: &QueueSpec) -> [(&'static str, bool); 6] {
    [
        ("base_loss", q.base_loss.is_some()),
        ("burst_halving_period", q.burst_halving_period.is_some()),
        ("red", q.red.is_some()),
        ("red_theta", q.red_theta.is_some()),
        ("red_max_p", q.red_max_p.is_some()),
        ("red_w_q", q.red_w_q.is_some()),
    ]
}

/// A `droptail` queue takes none of the segment-model keys.
pub fn check_droptail_only(q: &QueueSpec, at: &str, ctx: &Ctx) -> Result<(), InputError> {
    if let Some((key, _)) = burst_red_keys(q).into_iter().find(|(_, set)| *set) {
        return Err(ctx.err(format!("{at}.{key}"), format!("`{key}` belongs to kind = \"burst_red\"; this queue is \"droptail\"")));
    }
    Ok(())
}

fn fraction(v: f64, key: &str, at: &str, ctx: &Ctx, open_low: bool) -> Result<f64, InputError> {
    let ok = v.is_finite() && v <= 1.0 && if open_low { v > 0.0 } else { v >= 0.0 };
    if !ok {
        let range = if open_low { "in (0, 1]" } else { "from 0 to 1" };
        return Err(ctx.err(format!("{at}.{key}"), format!("expected a number {range}, got {v}")));
    }
    Ok(v)
}

/// Fills in the defaults of a `burst_red` queue feeding `segment` and checks them.
pub fn resolve_burst_red(q: &mut QueueSpec, segment: Segment, at: &str, ctx: &Ctx) -> Result<(), InputError> {
    if q.limit_packets.is_some() {
        return Err(ctx.err(format!("{at}.limit_packets"), "a burst_red segment is limited in bytes (`limit`, default bandwidth × delay)"));
    }
    let limit = *q.limit.get_or_insert(ByteSize::from_bytes(segment.bdp_bytes()));
    if limit.bytes() < RED_IDLE_FRAME_BYTES {
        return Err(ctx.err(
            format!("{at}.limit"),
            format!("expected a buffer of at least one full frame ({RED_IDLE_FRAME_BYTES} B), got {} B; the default is rate/8 × delay, so a very short link needs an explicit limit", limit.bytes()),
        ));
    }
    fraction(*q.base_loss.get_or_insert(BASE_LOSS), "base_loss", at, ctx, false)?;
    let period = *q.burst_halving_period.get_or_insert(TimeSpan::from_span(HALVING_PERIOD));
    if period.ps() == 0 {
        return Err(ctx.err(format!("{at}.burst_halving_period"), "expected a positive time, e.g. \"1ms\""));
    }
    q.red.get_or_insert(true);
    let theta = *q.red_theta.get_or_insert(red_theta(segment.delay.span(), THETA_LOW_LATENCY, THETA_HIGH_LATENCY));
    fraction(theta, "red_theta", at, ctx, false)?;
    fraction(*q.red_max_p.get_or_insert(RED_MAX_P), "red_max_p", at, ctx, false)?;
    fraction(*q.red_w_q.get_or_insert(RED_W_Q), "red_w_q", at, ctx, true)?;
    Ok(())
}

/// The segment model of a resolved `burst_red` queue feeding a direction of `rate_bps`.
pub fn burst_red_config(q: &QueueSpec, rate_bps: u64) -> BurstRedConfig {
    let buffer_bytes = q.limit.map_or(0, |b| b.bytes());
    let red = (q.red == Some(true)).then(|| RedConfig {
        min_th_bytes: q.red_theta.unwrap_or(THETA_HIGH_LATENCY) * buffer_bytes as f64,
        max_th_bytes: buffer_bytes as f64,
        max_p: q.red_max_p.unwrap_or(RED_MAX_P),
        w_q: q.red_w_q.unwrap_or(RED_W_Q),
        idle_packet_time: Span::serialization(RED_IDLE_FRAME_BYTES, rate_bps),
    });
    BurstRedConfig {
        buffer_bytes,
        base_loss: q.base_loss.unwrap_or(BASE_LOSS),
        halving_period: q.burst_halving_period.map_or(HALVING_PERIOD, |t| t.span()),
        red,
    }
}
