//! Sender pacing and the host qdisc (spec 06 §4.3, §5.3): each TCP flow's
//! `pacing` (flow ← host ← profile), then each host's `qdisc`, which must be
//! `fq` when a flow leaving the host paces with `kind = "fq"` and `ipg` when
//! one paces with `kind = "gap_packets"` (spec 01).

use crate::scenario::model::{FlowKind, FlowSpec, NodeKind, NodeSpec, PacingSpec, QdiscSpec};
use crate::scenario::resolve::Ctx;
use crate::scenario::units::{ByteSize, TimeSpan};
use crate::engine::time::Span;
use crate::error::InputError;
use crate::host::qdisc::fq::FqConfig;
use crate::host::tcp::config::{FqMode, PacingKind};
use crate::scenario::node_config::{need, Unresolved};

/// The host qdisc kinds implemented so far (spec 06 §5.3).
const QDISC_KINDS: &[&str] = &["pfifo", "fq", "ipg", "tcp_nic"];
/// Linux sch_fq defaults (spec 06 §5.3 `fq` table).
const FQ_LIMIT: u64 = 10_000;
const FQ_FLOW_LIMIT: u64 = 100;
const FQ_REFILL_DELAY: TimeSpan = TimeSpan::from_span(Span::from_ms(40));
const FQ_HORIZON: TimeSpan = TimeSpan::from_span(Span::from_secs(10));
/// spec 03 §2.5 `cps_T` default: Linux 2.4's 10 ms timer.
const CPS_T: TimeSpan = TimeSpan::from_span(Span::from_ms(10));

/// The pacing a profile gives a flow that sets none (spec 06 §2.1 "Pacing" row).
pub fn profile_pacing(profile: &str) -> PacingSpec {
    match profile {
        "linux-modern" => PacingSpec { kind: "fq".into(), mode: Some("edt".into()), max_rate: None, cps_t: None },
        _ => PacingSpec { kind: "off".into(), mode: None, max_rate: None, cps_t: None },
    }
}

/// Checks one `pacing` table; `at` is its key path.
pub fn check_pacing(p: &PacingSpec, at: &str, ctx: &Ctx) -> Result<(), InputError> {
    let kind: PacingKind = p
        .kind
        .parse()
        .map_err(|expected| ctx.err(format!("{at}.kind"), format!("expected {expected}, got \"{}\"", p.kind)))?;
    match (&p.mode, kind) {
        (Some(m), PacingKind::Fq) => {
            m.parse::<FqMode>()
                .map_err(|expected| ctx.err(format!("{at}.mode"), format!("expected {expected}, got \"{m}\"")))?;
        }
        (Some(_), _) => {
            return Err(ctx.err(format!("{at}.mode"), format!("`mode` applies only to kind = \"fq\", not \"{}\"", p.kind)));
        }
        (None, _) => {}
    }
    if matches!(kind, PacingKind::GapPackets | PacingKind::Cps | PacingKind::TcpNic) && p.max_rate.is_some() {
        return Err(ctx.err(format!("{at}.max_rate"), format!("`max_rate` caps TCP's pacing rate (kinds \"internal\" and \"fq\"); kind \"{}\" does not use it", p.kind)));
    }
    if p.cps_t.is_some() && kind != PacingKind::Cps {
        return Err(ctx.err(format!("{at}.cps_t"), format!("`cps_t` applies only to kind = \"cps\", not \"{}\"", p.kind)));
    }
    if p.cps_t.is_some_and(|t| t.ps() == 0) {
        return Err(ctx.err(format!("{at}.cps_t"), "expected a timer granularity greater than zero, e.g. \"10ms\" or \"1ms\""));
    }
    if p.max_rate.is_some_and(|r| r.bps == 0) {
        return Err(ctx.err(format!("{at}.max_rate"), "expected a rate greater than zero (omit it for no cap)"));
    }
    Ok(())
}

/// Resolves `flow[i].pacing` of a `tcp_bulk` flow with profile `profile` and
/// congestion control `cc`.
pub fn resolve_flow_pacing(f: &mut FlowSpec, i: usize, sender: &NodeSpec, profile: &str, cc: &str, ctx: &Ctx) -> Result<(), InputError> {
    let at = format!("flow[{i}].pacing");
    let mut p = f.pacing.take().or_else(|| sender.pacing.clone()).unwrap_or_else(|| profile_pacing(profile));
    check_pacing(&p, &at, ctx)?;
    if p.kind == "fq" {
        p.mode.get_or_insert_with(|| "edt".into());
    }
    if p.kind == "cps" {
        p.cps_t.get_or_insert(CPS_T);
    }
    // CHOICE (as Linux): BBR needs pacing; without fq it uses TCP internal pacing.
    if cc == "bbr" && p.kind == "off" {
        p.kind = "internal".into();
    }
    f.pacing = Some(p);
    Ok(())
}

/// The pacing kinds that need a particular host qdisc.
fn qdisc_needed(pacing_kind: &str) -> Option<&'static str> {
    match pacing_kind {
        "fq" => Some("fq"),
        "gap_packets" => Some("ipg"),
        "tcp_nic" => Some("tcp_nic"),
        _ => None,
    }
}

/// The keys only `kind = "fq"` takes, and whether `q` sets each.
fn fq_keys(q: &QdiscSpec) -> [(&'static str, bool); 6] {
    [
        ("limit", q.limit.is_some()),
        ("flow_limit", q.flow_limit.is_some()),
        ("quantum", q.quantum.is_some()),
        ("initial_quantum", q.initial_quantum.is_some()),
        ("flow_refill_delay", q.flow_refill_delay.is_some()),
        ("horizon", q.horizon.is_some()),
    ]
}

/// Fills in every host's qdisc: the one a flow's pacing needs (`fq`, `ipg`),
/// else `pfifo`.
pub fn resolve_host_qdiscs(nodes: &mut [NodeSpec], flows: &[FlowSpec], ctx: &Ctx) -> Result<(), InputError> {
    for ni in 0..nodes.len() {
        if nodes[ni].kind != NodeKind::Host {
            continue;
        }
        let at = |key: &str| format!("node[{ni}].{key}");
        let name = nodes[ni].name.clone();
        // The first flow leaving this host whose pacing needs a qdisc, and that qdisc.
        let needs = flows.iter().enumerate().find_map(|(fi, f)| {
            let p = f.pacing.as_ref().filter(|_| f.kind != FlowKind::UdpCbr && f.data_sender() == name)?;
            qdisc_needed(&p.kind).map(|k| (fi, k, p.kind.clone()))
        });
        let mut q = nodes[ni].qdisc.take().unwrap_or_else(|| QdiscSpec { kind: needs.as_ref().map_or("pfifo", |n| n.1).into(), ..QdiscSpec::default() });
        if !QDISC_KINDS.contains(&q.kind.as_str()) {
            return Err(ctx.err(at("qdisc.kind"), format!("expected \"pfifo\", \"fq\", \"ipg\" or \"tcp_nic\", got \"{}\"", q.kind)));
        }
        // Every key of the other kinds is foreign (`limit` is fq's; ipg and
        // tcp_nic refuse it with their own message).
        let fq = fq_keys(&q);
        let ipg = crate::scenario::host::qdisc::ipg::ipg_keys(&q);
        let nic = crate::scenario::host::qdisc::tcp_nic::tcp_nic_keys(&q);
        let foreign: Vec<(&str, bool)> = match q.kind.as_str() {
            "fq" => ipg.iter().chain(&nic).copied().collect(),
            "ipg" => fq.iter().filter(|(k, _)| *k != "limit").chain(&nic).copied().collect(),
            "tcp_nic" => fq.iter().filter(|(k, _)| *k != "limit").chain(&ipg).copied().collect(),
            _ => fq.iter().chain(&ipg).chain(&nic).copied().collect(),
        };
        if let Some((key, _)) = foreign.into_iter().find(|(_, set)| *set) {
            let hint = if q.kind == "pfifo" { "; a pfifo qdisc holds `txqueuelen` packets" } else { "" };
            return Err(ctx.err(at(&format!("qdisc.{key}")), format!("`{key}` does not apply to kind = \"{}\"{hint}", q.kind)));
        }
        if let Some((fi, want, pacing)) = &needs {
            if q.kind != *want {
                return Err(ctx.err(
                    format!("flow[{fi}].pacing.kind"),
                    format!("pacing kind \"{pacing}\" needs the {want} qdisc on host \"{name}\", whose qdisc is \"{}\" (set node[{ni}].qdisc.kind = \"{want}\" or choose another pacing kind)", q.kind),
                ));
            }
        }
        match q.kind.as_str() {
            "fq" => resolve_fq(&mut q, nodes[ni].mtu.unwrap_or(1500) as u64, &at, ctx)?,
            "ipg" => crate::scenario::host::qdisc::ipg::resolve_ipg(&mut q, ni, nodes, ctx)?,
            "tcp_nic" => crate::scenario::host::qdisc::tcp_nic::resolve_tcp_nic(&mut q, ni, &nodes[ni], ctx)?,
            _ => {}
        }
        nodes[ni].qdisc = Some(q);
    }
    Ok(())
}

/// Fills in and checks the keys of an `fq` qdisc.
/// The typed configuration of a resolved `fq` qdisc.
pub fn fq_config(q: &QdiscSpec, at: &dyn Fn(&str) -> String) -> Result<FqConfig, Unresolved> {
    Ok(FqConfig {
        limit_packets: need(q.limit, || at("limit"))?,
        flow_limit_packets: need(q.flow_limit, || at("flow_limit"))?,
        quantum_bytes: need(q.quantum, || at("quantum"))?.bytes(),
        initial_quantum_bytes: need(q.initial_quantum, || at("initial_quantum"))?.bytes(),
        refill_delay: need(q.flow_refill_delay, || at("flow_refill_delay"))?.span(),
        horizon: need(q.horizon, || at("horizon"))?.span(),
    })
}

fn resolve_fq(q: &mut QdiscSpec, mtu: u64, at: &dyn Fn(&str) -> String, ctx: &Ctx) -> Result<(), InputError> {
    let limit = *q.limit.get_or_insert(FQ_LIMIT);
    let flow_limit = *q.flow_limit.get_or_insert(FQ_FLOW_LIMIT);
    let quantum = *q.quantum.get_or_insert(ByteSize::from_bytes(2 * mtu));
    let initial = *q.initial_quantum.get_or_insert(ByteSize::from_bytes(10 * mtu));
    q.flow_refill_delay.get_or_insert(FQ_REFILL_DELAY);
    let horizon = *q.horizon.get_or_insert(FQ_HORIZON);
    if limit == 0 || flow_limit == 0 {
        let key = if limit == 0 { "limit" } else { "flow_limit" };
        return Err(ctx.err(at(&format!("qdisc.{key}")), "expected at least 1 packet, got 0"));
    }
    if quantum.bytes() == 0 || initial.bytes() == 0 {
        let key = if quantum.bytes() == 0 { "quantum" } else { "initial_quantum" };
        return Err(ctx.err(at(&format!("qdisc.{key}")), "expected a size greater than zero"));
    }
    if horizon.ps() == 0 {
        return Err(ctx.err(at("qdisc.horizon"), "expected a time greater than zero"));
    }
    Ok(())
}
