//! `node.nic`, `node.bus` and `node.fc`: the ten-gigabit end host of spec 04
//! §2.4–2.6, with every default filled in, and the built configurations.
//!
//! A host gets the NIC pipeline when it has a `nic`, `bus` or `cpu` table or
//! `fc.send = true`; otherwise it keeps the ideal NIC of spec 06 §5 (every
//! earlier chapter's scenarios are unchanged).

use crate::scenario::model::{BusSpec, FcSpec, LinkSpec, NicSpec, NodeKind, NodeSpec};
use crate::scenario::resolve::Ctx;
use crate::scenario::units::{ByteSize, Rate, RateOrZero, TimeSpan};
use crate::engine::time::Span;
use crate::error::InputError;
use crate::host::nic::bus::BusConfig;
use crate::host::nic::rate_cap::RateCapConfig;
use crate::host::nic::NicConfig;
use crate::net::pause::{headroom_bytes, pause_span, XoffConfig};
use crate::net::phy::{l2_bytes, wire_bytes};

/// spec 04 §2.4 parameter table.
const R_BUS: Rate = Rate::from_bps(8_533_000_000);
const ETA_BUS: f64 = 1.0;
const O_RX: ByteSize = ByteSize::from_bytes(64);
const O_TX: ByteSize = ByteSize::from_bytes(32);
const FIFO: ByteSize = ByteSize::from_bytes(256 << 10);
const DESCRIPTORS: u32 = 1024;
/// spec 04 §2.6.
const CAP_MIN: RateOrZero = RateOrZero::from_bps(6_000_000_000);
/// spec 04 §2.5 parameter table.
const MIN_HEADROOM: u64 = 32 << 10;
const XON_BELOW_XOFF: u64 = 64 << 10;
const PAUSE_QUANTA: u32 = 65_535;
const REACT_QUANTA: u32 = 60;
/// Generation by a switch or router (§2.5).
const SW_XOFF: ByteSize = ByteSize::from_bytes(512 << 10);
const SW_XON: ByteSize = ByteSize::from_bytes(256 << 10);
/// spec 04 §2.7 NIC profiles: (name, has a rate cap).
const NIC_PROFILES: &[(&str, bool)] = &[("chelsio_t110", true), ("chelsio_n110", true), ("intel_pro10gbe_sr", false)];

/// Fills in `nic`, `bus` and `fc` on every node (after hosts, links and qdiscs).
pub fn resolve_host_nics(nodes: &mut [NodeSpec], links: &[LinkSpec], ctx: &Ctx) -> Result<(), InputError> {
    for (ni, n) in nodes.iter_mut().enumerate() {
        let at = |key: &str| format!("node[{ni}].{key}");
        if n.kind != NodeKind::Host {
            for (key, given) in [("nic", n.nic.is_some()), ("bus", n.bus.is_some())] {
                if given {
                    return Err(ctx.err(at(key), "the NIC pipeline and the I/O bus belong to hosts only (spec 04 §2.4)"));
                }
            }
            let name = n.name.clone();
            if let Some(fc) = &mut n.fc {
                resolve_switch_fc(fc, &name, links, &at, ctx)?;
            }
            continue;
        }
        let sends = n.fc.as_ref().is_some_and(|f| f.send == Some(true));
        if n.nic.is_none() && n.bus.is_none() && !sends && n.cpu.is_none() {
            if let Some(fc) = &mut n.fc {
                resolve_honour_only(fc, &at, ctx)?;
            }
            continue;
        }
        if let Some(q) = n.qdisc.as_ref().filter(|q| q.kind == "ipg" || q.kind == "tcp_nic") {
            let why = if q.kind == "ipg" {
                "gap frames are PAUSE(0) frames and would cancel the NIC's own XOFF (spec 04 §2.5); the ipg qdisc keeps its own NIC model (spec 01 §2.6)"
            } else {
                "the TCP-aware NIC of spec 03 §2.7 is itself the NIC"
            };
            return Err(ctx.err(at("qdisc.kind"), format!("qdisc \"{}\" cannot be combined with the spec 04 NIC pipeline (nic/bus/fc.send): {why}", q.kind)));
        }
        let rate = n.nic_rate.map_or(0, |r| r.bps());
        resolve_nic(n.nic.get_or_insert_with(NicSpec::default), rate, &at, ctx)?;
        resolve_bus(n.bus.get_or_insert_with(BusSpec::default), &at, ctx)?;
        if let Some(fc) = &mut n.fc {
            let wire = wire_bytes(l2_bytes(n.mtu.unwrap_or(1500) as u64, false));
            let d_prop = host_link_delay(&n.name, links);
            let rx_fifo = n.nic.as_ref().and_then(|x| x.rx_fifo).map_or(0, |b| b.bytes());
            resolve_fc(fc, rate, wire, d_prop, rx_fifo, &at, ctx)?;
        }
    }
    Ok(())
}

/// `fc` of a port that does not generate PAUSE: the generator's keys are errors.
fn resolve_honour_only(fc: &mut FcSpec, at: &dyn Fn(&str) -> String, ctx: &Ctx) -> Result<(), InputError> {
    fc.send = Some(false);
    fc.honour.get_or_insert(false);
    fc.react_quanta.get_or_insert(REACT_QUANTA);
    let generator_keys = [
        ("headroom", fc.headroom.is_some()),
        ("xoff", fc.xoff.is_some()),
        ("xon", fc.xon.is_some()),
        ("pause_quanta", fc.pause_quanta.is_some()),
        ("refresh", fc.refresh.is_some()),
        ("sw_xoff", fc.sw_xoff.is_some()),
        ("sw_xon", fc.sw_xon.is_some()),
        ("sw_peers", fc.sw_peers.is_some()),
    ];
    for (key, given) in generator_keys {
        if given {
            return Err(ctx.err(at(&format!("fc.{key}")), "applies to a PAUSE generator: a node with fc.send = true"));
        }
    }
    Ok(())
}

/// `fc` of a switch or router (spec 04 §2.5, generation by a switch or
/// router): per ingress port, XOFF at `sw_xoff` bytes held, PAUSE(0) at
/// `sw_xon`. `refresh` left unset means half the pause duration at each
/// port's own rate (ports of one device may differ).
fn resolve_switch_fc(fc: &mut FcSpec, node: &str, links: &[LinkSpec], at: &dyn Fn(&str) -> String, ctx: &Ctx) -> Result<(), InputError> {
    if fc.send != Some(true) {
        return resolve_honour_only(fc, at, ctx);
    }
    for (key, given) in [("headroom", fc.headroom.is_some()), ("xoff", fc.xoff.is_some()), ("xon", fc.xon.is_some())] {
        if given {
            return Err(ctx.err(at(&format!("fc.{key}")), "applies to a host's RX FIFO; a switch or router uses fc.sw_xoff and fc.sw_xon"));
        }
    }
    fc.honour.get_or_insert(false);
    fc.react_quanta.get_or_insert(REACT_QUANTA);
    check_pause_quanta(*fc.pause_quanta.get_or_insert(PAUSE_QUANTA), at, ctx)?;
    let xoff = fc.sw_xoff.get_or_insert(SW_XOFF).bytes();
    if xoff == 0 {
        return Err(ctx.err(at("fc.sw_xoff"), "expected a threshold greater than 0 B"));
    }
    let xon = fc.sw_xon.get_or_insert(ByteSize::from_bytes(SW_XON.bytes().min(xoff / 2))).bytes();
    if xon >= xoff {
        return Err(ctx.err(at("fc.sw_xon"), format!("expected less than fc.sw_xoff ({xoff} B), got {xon} B")));
    }
    if fc.refresh.is_some_and(|t| t.ps() == 0) {
        return Err(ctx.err(at("fc.refresh"), "expected a time greater than zero"));
    }
    let neighbours: Vec<&str> = links.iter().filter_map(|l| if l.from == node { Some(l.to.as_str()) } else if l.to == node { Some(l.from.as_str()) } else { None }).collect();
    let peers = fc.sw_peers.get_or_insert_with(|| neighbours.iter().map(|s| s.to_string()).collect());
    if let Some((i, p)) = peers.iter().enumerate().find(|(_, p)| !neighbours.contains(&p.as_str())) {
        return Err(ctx.err(at(&format!("fc.sw_peers[{i}]")), format!("expected a neighbour of {node} ({}), got \"{p}\"", neighbours.join(", "))));
    }
    Ok(())
}

fn check_pause_quanta(quanta: u32, at: &dyn Fn(&str) -> String, ctx: &Ctx) -> Result<(), InputError> {
    if quanta == 0 || quanta > 65_535 {
        return Err(ctx.err(at("fc.pause_quanta"), format!("expected 1 to 65535 quanta (a 16-bit pause_time), got {quanta}")));
    }
    Ok(())
}

fn host_link_delay(host: &str, links: &[LinkSpec]) -> Span {
    links.iter().find(|l| l.from == host || l.to == host).map_or(Span::ZERO, |l| l.delay.span())
}

fn resolve_nic(x: &mut NicSpec, rate_bps: u64, at: &dyn Fn(&str) -> String, ctx: &Ctx) -> Result<(), InputError> {
    let profile = x.profile.get_or_insert_with(|| NIC_PROFILES[0].0.into()).clone();
    let Some(&(_, has_cap)) = NIC_PROFILES.iter().find(|(p, _)| *p == profile) else {
        let names: Vec<String> = NIC_PROFILES.iter().map(|(p, _)| format!("\"{p}\"")).collect();
        return Err(ctx.err(at("nic.profile"), format!("expected one of {}, got \"{profile}\"", names.join(", "))));
    };
    for (key, v) in [("nic.rx_fifo", *x.rx_fifo.get_or_insert(FIFO)), ("nic.tx_fifo", *x.tx_fifo.get_or_insert(FIFO))] {
        // At least one jumbo frame (L2 of MTU 9600) must fit.
        if v.bytes() < 9618 {
            return Err(ctx.err(at(key), format!("expected at least 9618 B (one frame of the largest MTU), got {} B", v.bytes())));
        }
    }
    for (key, v) in [("nic.rx_descriptors", *x.rx_descriptors.get_or_insert(DESCRIPTORS)), ("nic.tx_descriptors", *x.tx_descriptors.get_or_insert(DESCRIPTORS))] {
        if v == 0 {
            return Err(ctx.err(at(key), "expected at least 1 descriptor, got 0"));
        }
    }
    let cap_min = *x.tx_rate_cap_min.get_or_insert(CAP_MIN);
    let pacing = x.tx_pacing.get_or_insert_with(|| "per_frame".into()).clone();
    if pacing != "per_frame" && pacing != "burst_k" {
        return Err(ctx.err(at("nic.tx_pacing"), format!("expected \"per_frame\" or \"burst_k\", got \"{pacing}\"")));
    }
    let k = *x.tx_pacing_k.get_or_insert(1);
    if k == 0 {
        return Err(ctx.err(at("nic.tx_pacing_k"), "expected at least 1 frame per burst, got 0"));
    }
    if let Some(cap) = x.tx_rate_cap {
        if !has_cap {
            return Err(ctx.err(at("nic.tx_rate_cap"), format!("NIC profile \"{profile}\" has no rate cap (spec 04 §2.7)")));
        }
        if cap.bps() == 0 {
            return Err(ctx.err(at("nic.tx_rate_cap"), "expected a rate greater than zero"));
        }
        if rate_bps > 0 && cap.bps().max(cap_min.bps()) > rate_bps {
            return Err(ctx.err(at("nic.tx_rate_cap"), format!("expected at most the NIC rate {rate_bps} bit/s, got {} bit/s", cap.bps().max(cap_min.bps()))));
        }
    }
    Ok(())
}

fn resolve_bus(b: &mut BusSpec, at: &dyn Fn(&str) -> String, ctx: &Ctx) -> Result<(), InputError> {
    let model = b.model.get_or_insert_with(|| "shared".into()).clone();
    if model != "shared" && model != "none" {
        return Err(ctx.err(at("bus.model"), format!("expected \"shared\" or \"none\", got \"{model}\"")));
    }
    if b.rate.get_or_insert(R_BUS).bps() == 0 {
        return Err(ctx.err(at("bus.rate"), "expected a rate greater than zero"));
    }
    let eta = *b.efficiency.get_or_insert(ETA_BUS);
    if !(eta.is_finite() && eta > 0.0 && eta <= 1.0) {
        return Err(ctx.err(at("bus.efficiency"), format!("expected a number in (0, 1], got {eta}")));
    }
    b.o_rx.get_or_insert(O_RX);
    b.o_tx.get_or_insert(O_TX);
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn resolve_fc(fc: &mut FcSpec, rate_bps: u64, mtu_wire: u64, d_prop: Span, rx_fifo: u64, at: &dyn Fn(&str) -> String, ctx: &Ctx) -> Result<(), InputError> {
    if fc.send != Some(true) {
        return resolve_honour_only(fc, at, ctx);
    }
    fc.honour.get_or_insert(false);
    let react = *fc.react_quanta.get_or_insert(REACT_QUANTA);
    let quanta = *fc.pause_quanta.get_or_insert(PAUSE_QUANTA);
    check_pause_quanta(quanta, at, ctx)?;
    for (key, given) in [("sw_xoff", fc.sw_xoff.is_some()), ("sw_xon", fc.sw_xon.is_some()), ("sw_peers", fc.sw_peers.is_some())] {
        if given {
            return Err(ctx.err(at(&format!("fc.{key}")), "applies to a switch or router; a host's thresholds are fc.xoff and fc.xon"));
        }
    }
    let headroom = fc.headroom.get_or_insert_with(|| ByteSize::from_bytes(headroom_bytes(mtu_wire, d_prop, rate_bps, react as u64).max(MIN_HEADROOM))).bytes();
    let xoff = fc.xoff.get_or_insert_with(|| ByteSize::from_bytes(rx_fifo.saturating_sub(headroom))).bytes();
    if xoff == 0 || xoff > rx_fifo {
        return Err(ctx.err(at("fc.xoff"), format!("expected 1 B to nic.rx_fifo ({rx_fifo} B), got {xoff} B (F_rx − headroom {headroom} B)")));
    }
    // CHOICE: xon = xoff − 64 KiB, at least 0 (F_rx = 64 KiB in the E4.5 sweep).
    let xon = fc.xon.get_or_insert_with(|| ByteSize::from_bytes(xoff.saturating_sub(XON_BELOW_XOFF))).bytes();
    if xon >= xoff {
        return Err(ctx.err(at("fc.xon"), format!("expected less than fc.xoff ({xoff} B), got {xon} B")));
    }
    let refresh = fc.refresh.get_or_insert_with(|| TimeSpan::from_span(Span(pause_span(quanta as u64, rate_bps.max(1)).0 / 2)));
    if refresh.ps() == 0 {
        return Err(ctx.err(at("fc.refresh"), "expected a time greater than zero"));
    }
    Ok(())
}

/// The built pipeline of a resolved host with one (only hosts keep a `nic` table).
pub fn nic_config(n: &NodeSpec) -> Option<NicConfig> {
    let x = n.nic.as_ref()?;
    let b = n.bus.as_ref()?;
    let bus = (b.model.as_deref() != Some("none")).then(|| BusConfig {
        rate_bps: (b.rate.unwrap_or(R_BUS).bps() as f64 * b.efficiency.unwrap_or(ETA_BUS)).round() as u64,
        o_rx_bytes: b.o_rx.unwrap_or(O_RX).bytes(),
        o_tx_bytes: b.o_tx.unwrap_or(O_TX).bytes(),
    });
    let cap_min = x.tx_rate_cap_min.unwrap_or(CAP_MIN).bps();
    let cap = x.tx_rate_cap.map(|c| RateCapConfig {
        // Raised to the lowest settable cap; above the NIC rate is refused at load.
        cap_bps: c.bps().max(cap_min),
        burst_frames: if x.tx_pacing.as_deref() == Some("burst_k") { x.tx_pacing_k.unwrap_or(1) } else { 1 },
    });
    let fc = n.fc.as_ref().filter(|f| f.send == Some(true));
    Some(NicConfig {
        bus,
        rx_fifo_bytes: x.rx_fifo.unwrap_or(FIFO).bytes(),
        tx_fifo_bytes: x.tx_fifo.unwrap_or(FIFO).bytes(),
        rx_descriptors: x.rx_descriptors.unwrap_or(DESCRIPTORS),
        tx_descriptors: x.tx_descriptors.unwrap_or(DESCRIPTORS),
        cap,
        cap_clamped: x.tx_rate_cap.is_some_and(|c| c.bps() < cap_min),
        xoff: fc.map(|f| XoffConfig {
            xoff_bytes: f.xoff.map_or(0, |b| b.bytes()),
            xon_bytes: f.xon.map_or(0, |b| b.bytes()),
            pause_quanta: f.pause_quanta.unwrap_or(PAUSE_QUANTA) as u16,
            refresh: f.refresh.map_or(Span::ZERO, |t| t.span()),
        }),
    })
}

/// A switch or router that generates PAUSE per ingress port: its thresholds
/// (`refresh` zero meaning half the pause duration at each port's rate) and
/// the neighbours whose ports generate.
pub fn switch_xoff_config(n: &NodeSpec) -> Option<(XoffConfig, &[String])> {
    if n.kind == NodeKind::Host {
        return None;
    }
    let f = n.fc.as_ref().filter(|f| f.send == Some(true))?;
    let cfg = XoffConfig {
        xoff_bytes: f.sw_xoff.unwrap_or(SW_XOFF).bytes(),
        xon_bytes: f.sw_xon.unwrap_or(SW_XON).bytes(),
        pause_quanta: f.pause_quanta.unwrap_or(PAUSE_QUANTA) as u16,
        refresh: f.refresh.map_or(Span::ZERO, |t| t.span()),
    };
    Some((cfg, f.sw_peers.as_deref().unwrap_or(&[])))
}

/// The reaction delay of a node's ports if they honour PAUSE.
pub fn honour_react_quanta(n: &NodeSpec) -> Option<u32> {
    n.fc.as_ref().filter(|f| f.honour == Some(true)).map(|f| f.react_quanta.unwrap_or(REACT_QUANTA))
}
