//! `[[flow]]` checks and defaults (spec 00 §2.2, spec 06 §2.1 and §2.3).

use std::collections::BTreeMap;

use super::host::cc_names::{available, check_cc};
use super::net::links::Graph;
use super::model::{FlowKind, FlowSpec, NodeKind, NodeSpec, PacingSpec};
use super::nodes::{a_kind, check_profile};
use super::quickstart::resolve_flow_qs;
use crate::apps::web::{HttpVariant, WebModel};
use super::host::profiles::{default_cc, profile_params, DEFAULT_PROFILE};
use super::resolve::Ctx;
use super::host::cc_params::resolve_cc_params;
use super::host::pacing::resolve_flow_pacing;
use super::host::tcp_params::{check_params, merge};
use super::units::{ByteSize, TimeSpan};
use crate::error::InputError;
use crate::quickstart::MAX_RATE_CODE;

/// spec 02 §3.1: the client's request.
const DEFAULT_REQUEST: ByteSize = ByteSize::from_bytes(100);
/// A limit on Web users per flow (each user is a state machine and its connections).
const MAX_WEB_USERS: u32 = 10_000;
/// A full-size Ethernet IP packet.
const DEFAULT_UDP_SIZE: u32 = 1500;
/// IPv4 and UDP headers with no payload.
const MIN_UDP_SIZE: u32 = 28;
/// A datagram with the IPv4 Quick-Start option: 20 + 8 + 8 bytes.
const MIN_UDP_QS_SIZE: u32 = 36;

/// Checks and fills in every flow. `nodes` are resolved hosts; `duration` is `sim.duration`.
pub fn resolve_flows(
    flows: &mut [FlowSpec],
    nodes: &[NodeSpec],
    graph: &Graph,
    duration: TimeSpan,
    ctx: &Ctx,
) -> Result<(), InputError> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for (i, f) in flows.iter_mut().enumerate() {
        let at = |key: &str| format!("flow[{i}].{key}");
        if f.name.is_empty() {
            return Err(ctx.err(at("name"), "a flow name must not be empty"));
        }
        if let Some(j) = seen.insert(f.name.clone(), i) {
            return Err(ctx.err(
                at("name"),
                format!(
                    "duplicate flow name \"{}\": flow[{j}] has the same name",
                    f.name
                ),
            ));
        }
        let from = endpoint(&f.from, "from", i, nodes, graph, ctx)?;
        let to = endpoint(&f.to, "to", i, nodes, graph, ctx)?;
        if from == to {
            return Err(ctx.err(
                at("to"),
                format!(
                    "a flow must join two different hosts; both ends are \"{}\"",
                    f.to
                ),
            ));
        }
        if !graph.route_exists(from, to) {
            return Err(ctx.err(
                format!("flow[{i}]"),
                format!(
                    "no route from \"{}\" to \"{}\": the path must run through routers or emulators only (hosts do not forward)",
                    f.from, f.to
                ),
            ));
        }
        let start = *f.start.get_or_insert(TimeSpan::ZERO);
        if start >= duration {
            // CHOICE (docs/choices.md "A flow that starts after the run"): an error, not a
            // silent flow that never sends (issue 40).
            return Err(ctx.err(
                at("start"),
                format!("start ({start}) must be before the end of the run (sim.duration = {duration}): the flow would never send"),
            ));
        }
        match f.kind {
            FlowKind::TcpBulk => {
                refuse_keys(&[("request", f.request.is_some()), ("response", f.response.is_some())], i, "tcp_bulk", "request_response", ctx)?;
                refuse_keys(&[("users", f.users.is_some()), ("web_model", f.web_model.is_some()), ("http", f.http.is_some())], i, "tcp_bulk", "web", ctx)?;
                resolve_tcp_bulk(f, i, &nodes[from], ctx)?;
                resolve_quickstart(f, i, &nodes[from], ctx)?;
            }
            FlowKind::RequestResponse => {
                refuse_keys(&[("bytes", f.bytes.is_some()), ("app_rate", f.app_rate.is_some())], i, "request_response", "tcp_bulk", ctx)?;
                refuse_keys(&[("users", f.users.is_some()), ("web_model", f.web_model.is_some()), ("http", f.http.is_some())], i, "request_response", "web", ctx)?;
                // The server (`to`) sends the data: its host gives the defaults.
                resolve_tcp_bulk(f, i, &nodes[to], ctx)?;
                let req = *f.request.get_or_insert(DEFAULT_REQUEST);
                if req.bytes() == 0 {
                    return Err(ctx.err(at("request"), "expected at least 1 byte of request"));
                }
                if f.response.is_some_and(|b| b.bytes() == 0) {
                    return Err(ctx.err(at("response"), "expected at least 1 byte of response (omit `response` for unlimited data)"));
                }
                resolve_quickstart(f, i, &nodes[to], ctx)?;
            }
            FlowKind::Web => {
                refuse_keys(
                    &[("bytes", f.bytes.is_some()), ("app_rate", f.app_rate.is_some()), ("request", f.request.is_some()), ("response", f.response.is_some())],
                    i,
                    "web",
                    "other",
                    ctx,
                )?;
                // CHOICE: connections created at run time are unpaced (no per-connection qdisc state).
                f.pacing.get_or_insert_with(|| PacingSpec { kind: "off".into(), mode: None, max_rate: None, cps_t: None });
                resolve_tcp_bulk(f, i, &nodes[to], ctx)?;
                if let Some(p) = f.pacing.as_ref().filter(|p| p.kind != "off") {
                    return Err(ctx.err(at("pacing.kind"), format!("web flows are unpaced: expected \"off\", got \"{}\"", p.kind)));
                }
                resolve_web(f, i, ctx)?;
                resolve_quickstart(f, i, &nodes[to], ctx)?;
            }
            FlowKind::UdpCbr => {
                refuse_keys(
                    &[("request", f.request.is_some()), ("response", f.response.is_some()), ("quickstart", f.quickstart.is_some()), ("users", f.users.is_some()), ("web_model", f.web_model.is_some()), ("http", f.http.is_some())],
                    i,
                    "udp_cbr",
                    "TCP",
                    ctx,
                )?;
                resolve_udp_cbr(f, i, &nodes[from], duration, ctx)?;
            }
        }
    }
    Ok(())
}

/// spec 02 §2.3.1 and §2.4: the flow's Quick-Start table, once its TCP
/// parameters are resolved. `sender` is the host that sends the data.
fn resolve_quickstart(f: &mut FlowSpec, i: usize, sender: &NodeSpec, ctx: &Ctx) -> Result<(), InputError> {
    let Some(q) = &mut f.quickstart else { return Ok(()) };
    let at = format!("flow[{i}].quickstart");
    if sender.ip_version == Some(6) {
        return Err(ctx.err(at, format!("Quick-Start is implemented for IPv4 only (spec 02 §2.2.6); host \"{}\" has ip_version = 6", sender.name)));
    }
    // H: the actual IP + TCP header of a full segment, options included (open point 3).
    let ts = f.tcp.as_ref().and_then(|t| t.timestamps).unwrap_or(true);
    let header = 20 + 20 + if ts { 12 } else { 0 };
    resolve_flow_qs(q, header, &at, ctx)
}

/// spec 02 §3.2: the Web workload's keys.
fn resolve_web(f: &mut FlowSpec, i: usize, ctx: &Ctx) -> Result<(), InputError> {
    let at = |key: &str| format!("flow[{i}].{key}");
    let users = *f.users.get_or_insert(1);
    if !(1..=MAX_WEB_USERS).contains(&users) {
        return Err(ctx.err(at("users"), format!("expected 1 to {MAX_WEB_USERS} users, got {users}")));
    }
    let model = f.web_model.get_or_insert_with(|| "surge_default".into());
    if model.parse::<WebModel>().is_err() {
        return Err(ctx.err(at("web_model"), format!("expected one of {}, got \"{model}\"", WebModel::NAMES.join(", "))));
    }
    let http = f.http.get_or_insert_with(|| "http10".into());
    if http.parse::<HttpVariant>().is_err() {
        return Err(ctx.err(at("http"), format!("expected one of {}, got \"{http}\"", HttpVariant::NAMES.join(", "))));
    }
    Ok(())
}

/// The node index of a flow end, which must be a host.
fn endpoint(
    name: &str,
    key: &str,
    i: usize,
    nodes: &[NodeSpec],
    graph: &Graph,
    ctx: &Ctx,
) -> Result<usize, InputError> {
    let at = format!("flow[{i}].{key}");
    let n = graph
        .find(name)
        .ok_or_else(|| ctx.err(at.clone(), graph.unknown(name)))?;
    if nodes[n].kind != NodeKind::Host {
        return Err(ctx.err(
            at,
            format!(
                "a flow's ends must be hosts; \"{name}\" is {}",
                a_kind(nodes[n].kind)
            ),
        ));
    }
    Ok(n)
}

/// An error at the first key present that belongs to the other flow kind.
fn refuse_keys(
    present: &[(&str, bool)],
    i: usize,
    kind: &str,
    other: &str,
    ctx: &Ctx,
) -> Result<(), InputError> {
    match present.iter().find(|(_, is_set)| *is_set) {
        Some((key, _)) => Err(ctx.err(
            format!("flow[{i}].{key}"),
            format!("`{key}` applies to {other} flows only; this flow is {kind}"),
        )),
        None => Ok(()),
    }
}

fn resolve_tcp_bulk(
    f: &mut FlowSpec,
    i: usize,
    sender: &NodeSpec,
    ctx: &Ctx,
) -> Result<(), InputError> {
    let at = |key: &str| format!("flow[{i}].{key}");
    refuse_keys(
        &[
            ("rate", f.rate.is_some()),
            ("size", f.size.is_some()),
            ("arrivals", f.arrivals.is_some()),
            ("stop", f.stop.is_some()),
            ("qs_requests", f.qs_requests.is_some()),
        ],
        i,
        "tcp_bulk",
        "udp_cbr",
        ctx,
    )?;
    // spec 06 §2.1: the flow's profile, else its host's, else linux-modern.
    let profile = f.profile.get_or_insert_with(|| {
        sender
            .profile
            .clone()
            .unwrap_or_else(|| DEFAULT_PROFILE.into())
    });
    check_profile(profile).map_err(|m| ctx.err(at("profile"), m))?;
    let base = profile_params(profile).unwrap_or_default();
    match &f.cc {
        Some(cc) => check_cc(cc).map_err(|m| ctx.err(at("cc"), m))?,
        None => {
            let cc = default_cc(profile).unwrap_or("newreno");
            if let Err(reason) = check_cc(cc) {
                return Err(ctx.err(
                    at("cc"),
                    format!(
                        "no cc given and profile \"{profile}\" defaults to \"{cc}\": {reason}; set cc to one of {}",
                        available().join(", ")
                    ),
                ));
            }
            f.cc = Some(cc.to_string());
        }
    }
    if f.bytes.is_some_and(|b| b.bytes() == 0) {
        return Err(ctx.err(
            at("bytes"),
            "expected at least 1 byte to transfer (omit `bytes` for unlimited data)",
        ));
    }
    // spec 06 §2.1: profile table ← host `tcp` ← flow `tcp`.
    let flow_tcp = f.tcp.take().unwrap_or_default();
    check_params(&flow_tcp, ctx.file, &at("tcp"))?;
    let host_tcp = sender.tcp.clone().unwrap_or_default();
    let mut merged = merge(&merge(&base, &host_tcp), &flow_tcp);
    // A pair may be valid in each table yet clash once merged.
    check_params(&merged, ctx.file, &at("tcp"))?;
    // A buffer the flow sets is locked, as setsockopt locks it in Linux; an
    // unset one is the profile's tcp_[rw]mem[2], grown into by autotuning
    // from tcp_[rw]mem[1] (host::tcp::autotune).
    merged.sndbuf_lock = Some(merged.sndbuf_lock.unwrap_or(f.sndbuf.is_some()));
    merged.rcvbuf_lock = Some(merged.rcvbuf_lock.unwrap_or(f.rcvbuf.is_some()));
    let sndbuf = *f.sndbuf.get_or_insert(merged.wmem_max.unwrap_or(ByteSize::from_bytes(4 << 20)));
    let rcvbuf = *f.rcvbuf.get_or_insert(merged.rmem_max.unwrap_or(ByteSize::from_bytes(6 << 20)));
    for (key, value) in [("sndbuf", sndbuf), ("rcvbuf", rcvbuf)] {
        if value.bytes() == 0 {
            return Err(ctx.err(at(key), "a socket buffer must be greater than zero"));
        }
    }
    f.tcp = Some(merged);
    let profile = f.profile.clone().unwrap_or_default();
    let cc = f.cc.clone().unwrap_or_default();
    f.cc_params = Some(resolve_cc_params(f.cc_params.as_ref(), &cc, &profile, &at("cc_params"), ctx)?);
    resolve_flow_pacing(f, i, sender, &profile, &cc, ctx)?;
    Ok(())
}

fn resolve_udp_cbr(
    f: &mut FlowSpec,
    i: usize,
    sender: &NodeSpec,
    duration: TimeSpan,
    ctx: &Ctx,
) -> Result<(), InputError> {
    let at = |key: &str| format!("flow[{i}].{key}");
    refuse_keys(
        &[
            ("cc", f.cc.is_some()),
            ("profile", f.profile.is_some()),
            ("sndbuf", f.sndbuf.is_some()),
            ("rcvbuf", f.rcvbuf.is_some()),
            ("tcp", f.tcp.is_some()),
            ("bytes", f.bytes.is_some()),
            ("cc_params", f.cc_params.is_some()),
            ("pacing", f.pacing.is_some()),
            ("app_rate", f.app_rate.is_some()),
        ],
        i,
        "udp_cbr",
        "tcp_bulk",
        ctx,
    )?;
    if f.rate.is_none() {
        return Err(ctx.err(
            at("rate"),
            "a udp_cbr flow needs a rate, such as \"500Mbps\"",
        ));
    }
    let arrivals = f.arrivals.get_or_insert_with(|| "cbr".into());
    if arrivals != "cbr" && arrivals != "poisson" {
        return Err(ctx.err(at("arrivals"), format!("expected \"cbr\" or \"poisson\", got \"{arrivals}\"")));
    }
    let mtu = sender.mtu.unwrap_or(1500);
    let size = *f.size.get_or_insert(DEFAULT_UDP_SIZE);
    if !(MIN_UDP_SIZE..=mtu).contains(&size) {
        return Err(ctx.err(
            at("size"),
            format!("expected an IP packet length from {MIN_UDP_SIZE} to {mtu} bytes (the mtu of \"{}\"), got {size}", sender.name),
        ));
    }
    if let Some(q) = &mut f.qs_requests {
        let share = q.share.ok_or_else(|| ctx.err(at("qs_requests.share"), "missing required key: the fraction of datagrams that carry a request, 0 to 1"))?;
        if !(share.is_finite() && (0.0..=1.0).contains(&share)) {
            return Err(ctx.err(at("qs_requests.share"), format!("expected a fraction from 0 to 1, got {share}")));
        }
        let code = *q.rate_code.get_or_insert(7);
        if !(1..=MAX_RATE_CODE).contains(&code) {
            return Err(ctx.err(at("qs_requests.rate_code"), format!("expected a rate code from 1 to {MAX_RATE_CODE}, got {code}")));
        }
        // IP header 20 + the 8-byte option + UDP header 8.
        if size < MIN_UDP_QS_SIZE {
            return Err(ctx.err(at("size"), format!("datagrams with a Quick-Start option need at least {MIN_UDP_QS_SIZE} bytes, got {size}")));
        }
    }
    let start = f.start.unwrap_or(TimeSpan::ZERO);
    match f.stop {
        Some(stop) if stop <= start => {
            return Err(ctx.err(
                at("stop"),
                format!("stop ({stop}) must be after start ({start})"),
            ));
        }
        Some(_) => {}
        // spec 00 §2.2: a udp_cbr flow runs to the end of the run by default (its start
        // is before the end: resolve_flows).
        None => f.stop = Some(duration),
    }
    Ok(())
}
