//! Sender pacing and the host qdisc (spec 06 §4.3, §5.3): each TCP flow's
//! `pacing` (flow ← host ← profile), then each host's `qdisc`, which must be
//! `fq` when a flow leaving the host paces with `kind = "fq"`.

use super::model::{FlowKind, FlowSpec, NodeKind, NodeSpec, PacingSpec, QdiscSpec};
use super::resolve::Ctx;
use super::units::{ByteSize, TimeSpan};
use crate::engine::time::Span;
use crate::error::InputError;
use crate::host::tcp::config::{FqMode, PacingKind};

/// The host qdisc kinds implemented so far (spec 06 §5.3).
const QDISC_KINDS: &[&str] = &["pfifo", "fq"];
/// Linux sch_fq defaults (spec 06 §5.3 `fq` table).
const FQ_LIMIT: u64 = 10_000;
const FQ_FLOW_LIMIT: u64 = 100;
const FQ_REFILL_DELAY: TimeSpan = TimeSpan::from_span(Span::from_ms(40));
const FQ_HORIZON: TimeSpan = TimeSpan::from_span(Span::from_secs(10));

/// The pacing a profile gives a flow that sets none (spec 06 §2.1 "Pacing" row).
pub fn profile_pacing(profile: &str) -> PacingSpec {
    match profile {
        "linux-modern" => PacingSpec { kind: "fq".into(), mode: Some("edt".into()), max_rate: None },
        _ => PacingSpec { kind: "off".into(), mode: None, max_rate: None },
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
    // CHOICE (as Linux): BBR needs pacing; without fq it uses TCP internal pacing.
    if cc == "bbr" && p.kind == "off" {
        p.kind = "internal".into();
    }
    f.pacing = Some(p);
    Ok(())
}

/// Fills in every host's qdisc: `fq` where a flow needs it, else `pfifo`.
pub fn resolve_host_qdiscs(nodes: &mut [NodeSpec], flows: &[FlowSpec], ctx: &Ctx) -> Result<(), InputError> {
    for (ni, n) in nodes.iter_mut().enumerate() {
        if n.kind != NodeKind::Host {
            continue;
        }
        let at = |key: &str| format!("node[{ni}].{key}");
        let needs_fq = flows.iter().position(|f| {
            f.kind == FlowKind::TcpBulk && f.from == n.name && f.pacing.as_ref().is_some_and(|p| p.kind == "fq")
        });
        let q = n.qdisc.get_or_insert_with(|| QdiscSpec {
            kind: if needs_fq.is_some() { "fq" } else { "pfifo" }.into(),
            limit: None,
            flow_limit: None,
            quantum: None,
            initial_quantum: None,
            flow_refill_delay: None,
            horizon: None,
        });
        if !QDISC_KINDS.contains(&q.kind.as_str()) {
            return Err(ctx.err(at("qdisc.kind"), format!("expected \"pfifo\" or \"fq\" (the host qdiscs implemented so far), got \"{}\"", q.kind)));
        }
        if let (Some(fi), "pfifo") = (needs_fq, q.kind.as_str()) {
            return Err(ctx.err(
                format!("flow[{fi}].pacing.kind"),
                format!("pacing kind \"fq\" needs the fq qdisc on host \"{}\", whose qdisc is \"pfifo\" (set node[{ni}].qdisc.kind = \"fq\" or choose pacing kind \"internal\")", n.name),
            ));
        }
        if q.kind == "pfifo" {
            for (key, set) in [
                ("limit", q.limit.is_some()),
                ("flow_limit", q.flow_limit.is_some()),
                ("quantum", q.quantum.is_some()),
                ("initial_quantum", q.initial_quantum.is_some()),
                ("flow_refill_delay", q.flow_refill_delay.is_some()),
                ("horizon", q.horizon.is_some()),
            ] {
                if set {
                    return Err(ctx.err(at(&format!("qdisc.{key}")), format!("`{key}` applies only to kind = \"fq\"; a pfifo qdisc holds `txqueuelen` packets")));
                }
            }
            continue;
        }
        let mtu = n.mtu.unwrap_or(1500) as u64;
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
    }
    Ok(())
}
