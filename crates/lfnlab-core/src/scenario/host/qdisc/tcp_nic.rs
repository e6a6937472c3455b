//! The `tcp_nic` host qdisc (the TCP-aware NIC of spec 03 §2.7): defaults and
//! checks of its keys, and the typed configuration the simulator builds it from.

use crate::scenario::model::{NodeSpec, QdiscSpec};
use crate::scenario::resolve::Ctx;
use crate::scenario::units::{ByteSize, TimeSpan};
use crate::engine::time::Span;
use crate::error::InputError;
use crate::host::qdisc::tcp_nic::{NicMode, RttPoint, TcpNicConfig};

/// spec 03 §2.7.6 parameter table.
const NIC_MODE: &str = "dynamic";
const NIC_TICK: Span = Span::from_ns(64);
const NIC_MAX_STREAMS: u32 = 64;
const NIC_SEND_BUFFER: u64 = 128 << 20;
/// CHOICE changed from the spec's `tcp_handoff` (open point 10; docs/choices.md).
const RTT_POINT: &str = "wire_departure";
/// The largest frame slot in the Send Buffer: 1518-byte frame + 8-byte header.
const LARGEST_SLOT_BYTES: u64 = 1518 + 8;

/// The keys only `kind = "tcp_nic"` takes, and whether `q` sets each.
pub fn tcp_nic_keys(q: &QdiscSpec) -> [(&'static str, bool); 6] {
    [
        ("nic_mode", q.nic_mode.is_some()),
        ("fixed_ipg", q.fixed_ipg.is_some()),
        ("nic_tick", q.nic_tick.is_some()),
        ("nic_max_streams", q.nic_max_streams.is_some()),
        ("nic_send_buffer", q.nic_send_buffer.is_some()),
        ("rtt_timestamp_point", q.rtt_timestamp_point.is_some()),
    ]
}

/// Fills in the defaults of host `ni`'s `tcp_nic` qdisc and checks them.
pub fn resolve_tcp_nic(q: &mut QdiscSpec, ni: usize, n: &NodeSpec, ctx: &Ctx) -> Result<(), InputError> {
    let at = |key: &str| format!("node[{ni}].qdisc.{key}");
    if q.limit.is_some() {
        return Err(ctx.err(at("limit"), "a tcp_nic holds what fits in its Send Buffer; set nic_send_buffer"));
    }
    let mode = q.nic_mode.get_or_insert_with(|| NIC_MODE.into()).clone();
    match (mode.as_str(), q.fixed_ipg) {
        ("dynamic", None) => {}
        ("dynamic", Some(_)) => return Err(ctx.err(at("fixed_ipg"), "`fixed_ipg` applies only to nic_mode = \"fixed\"")),
        ("fixed", None) => return Err(ctx.err(at("fixed_ipg"), "nic_mode = \"fixed\" needs an IPG, e.g. fixed_ipg = \"256B\"")),
        ("fixed", Some(g)) if g.bytes() == 0 => return Err(ctx.err(at("fixed_ipg"), "expected an IPG of at least 1 byte")),
        ("fixed", Some(_)) => {}
        (other, _) => return Err(ctx.err(at("nic_mode"), format!("expected \"dynamic\" or \"fixed\", got \"{other}\""))),
    }
    let tick = *q.nic_tick.get_or_insert(TimeSpan::from_span(NIC_TICK));
    if tick.ps() == 0 {
        return Err(ctx.err(at("nic_tick"), "expected a positive counter tick, e.g. \"64ns\""));
    }
    if let (Some(g), Some(rate)) = (q.fixed_ipg, n.nic_rate) {
        let mut c = TcpNicConfig::new(rate.bps());
        c.tick = tick.span();
        let max = c.max_ipg();
        let ipg = Span::serialization(g.bytes(), rate.bps());
        if ipg > max {
            return Err(ctx.err(at("fixed_ipg"), format!("an IPG of {} B lasts {:.3} ms at {} bit/s, beyond the counter's largest ({:.3} ms)", g.bytes(), ipg.as_secs_f64() * 1e3, rate.bps(), max.as_secs_f64() * 1e3)));
        }
    }
    let streams = *q.nic_max_streams.get_or_insert(NIC_MAX_STREAMS);
    if streams == 0 {
        return Err(ctx.err(at("nic_max_streams"), "expected at least 1 CAM entry"));
    }
    let buffer = *q.nic_send_buffer.get_or_insert(ByteSize::from_bytes(NIC_SEND_BUFFER));
    if buffer.bytes() < LARGEST_SLOT_BYTES {
        return Err(ctx.err(at("nic_send_buffer"), format!("expected at least one full frame slot ({LARGEST_SLOT_BYTES} B), got {} B", buffer.bytes())));
    }
    let point = q.rtt_timestamp_point.get_or_insert_with(|| RTT_POINT.into());
    if point != "tcp_handoff" && point != "wire_departure" {
        return Err(ctx.err(at("rtt_timestamp_point"), format!("expected \"tcp_handoff\" or \"wire_departure\", got \"{point}\"")));
    }
    Ok(())
}

/// The typed configuration of a resolved `tcp_nic` qdisc for a NIC of `line_rate_bps`.
pub fn tcp_nic_config(q: &QdiscSpec, line_rate_bps: u64) -> TcpNicConfig {
    let mut cfg = TcpNicConfig::new(line_rate_bps);
    cfg.mode = match (q.nic_mode.as_deref(), q.fixed_ipg) {
        (Some("fixed"), Some(g)) => NicMode::Fixed { ipg_bytes: g.bytes() },
        _ => NicMode::Dynamic,
    };
    cfg.tick = q.nic_tick.map_or(NIC_TICK, |t| t.span());
    cfg.max_streams = q.nic_max_streams.unwrap_or(NIC_MAX_STREAMS);
    cfg.send_buffer_bytes = q.nic_send_buffer.map_or(NIC_SEND_BUFFER, |b| b.bytes());
    cfg.rtt_point = if q.rtt_timestamp_point.as_deref() == Some("wire_departure") { RttPoint::WireDeparture } else { RttPoint::TcpHandoff };
    cfg
}
