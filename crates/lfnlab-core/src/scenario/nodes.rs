//! `[[node]]` checks and host defaults (spec 00 §2.2, spec 06 §1.2 and §5.1).

use std::collections::BTreeMap;

use super::model::{LinkSpec, NodeKind, NodeSpec};
use super::host::profiles::PROFILES;
use super::quickstart::{check_proc_at_host, resolve_router_qs};
use super::resolve::Ctx;
use super::host::pacing::check_pacing;
use super::host::tcp_params::check_params;
use crate::error::InputError;

/// Interface queue length in packets (spec 06 §5.1).
const DEFAULT_TXQUEUELEN: u32 = 1000;
/// Inter-packet gap in bytes (spec 06 §1.3 U2).
const DEFAULT_IPG_BYTES: u32 = 12;
/// NIC IPG tuning range (spec 06 §5.1, chapter 03 §2.3).
const IPG_BYTES_RANGE: std::ops::RangeInclusive<u32> = 8..=1023;
/// Ethernet MTU.
const DEFAULT_MTU: u32 = 1500;
/// spec 02 §2.3.1 `initial_ip_ttl`.
const DEFAULT_IP_TTL: u8 = crate::net::packet::DEFAULT_IP_TTL;
/// CHOICE: 576 B is the IPv4 minimum datagram every host must accept; 9600 B
/// covers the jumbo frames of chapter 04 (9198 B) with room to spare.
const MTU_RANGE: std::ops::RangeInclusive<u32> = 576..=9600;

/// The kind with its article, for messages: "a host", "an emulator".
pub fn a_kind(kind: NodeKind) -> &'static str {
    match kind {
        NodeKind::Host => "a host",
        NodeKind::Router => "a router",
        NodeKind::Emulator => "an emulator",
        NodeKind::Switch => "a switch",
    }
}

/// Names, kinds and host-only keys, before the links are known.
pub fn check_nodes(nodes: &[NodeSpec], ctx: &Ctx) -> Result<(), InputError> {
    if nodes.is_empty() {
        // CHOICE (docs/choices.md): nothing can run; an error rather than an empty result (issue 40).
        return Err(ctx.err("node", "no nodes: a scenario needs at least two hosts joined by links ([[node]], [[link]])"));
    }
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, n) in nodes.iter().enumerate() {
        let at = |key: &str| format!("node[{i}].{key}");
        if n.name.is_empty() {
            return Err(ctx.err(at("name"), "a node name must not be empty"));
        }
        if n.name.contains("->") {
            return Err(ctx.err(
                at("name"),
                format!("a node name must not contain \"->\" (it joins the ends of a monitor's link), got \"{}\"", n.name),
            ));
        }
        if let Some(j) = seen.insert(&n.name, i) {
            return Err(ctx.err(
                at("name"),
                format!(
                    "duplicate node name \"{}\": node[{j}] has the same name",
                    n.name
                ),
            ));
        }
        match n.kind {
            NodeKind::Router | NodeKind::Emulator | NodeKind::Switch => {
                if let Some((key, _)) = host_keys(n).into_iter().find(|(_, present)| *present) {
                    return Err(ctx.err(
                        at(key),
                        format!(
                            "`{key}` applies to hosts only; node \"{}\" is {}",
                            n.name,
                            a_kind(n.kind)
                        ),
                    ));
                }
            }
            NodeKind::Host => {}
        }
    }
    Ok(())
}

fn host_keys(n: &NodeSpec) -> [(&'static str, bool); 10] {
    [
        ("nic_rate", n.nic_rate.is_some()),
        ("txqueuelen", n.txqueuelen.is_some()),
        ("ipg_bytes", n.ipg_bytes.is_some()),
        ("mtu", n.mtu.is_some()),
        ("ip_version", n.ip_version.is_some()),
        ("qdisc", n.qdisc.is_some()),
        ("profile", n.profile.is_some()),
        ("tcp", n.tcp.is_some()),
        ("pacing", n.pacing.is_some()),
        ("ip_ttl", n.ip_ttl.is_some()),
    ]
}

/// Every node's Quick-Start interfaces (spec 02 §2.5.1).
pub fn resolve_node_qs(nodes: &mut [NodeSpec], ctx: &Ctx) -> Result<(), InputError> {
    for (i, n) in nodes.iter_mut().enumerate() {
        if let Some(q) = &mut n.quickstart {
            resolve_router_qs(q, &format!("node[{i}].quickstart"), ctx)?;
            if n.kind == NodeKind::Host {
                check_proc_at_host(q, &format!("node[{i}].quickstart"), &n.name, ctx)?;
            }
        }
    }
    Ok(())
}

/// Host defaults and range checks, once the links are checked.
pub fn resolve_hosts(
    nodes: &mut [NodeSpec],
    links: &[LinkSpec],
    ctx: &Ctx,
) -> Result<(), InputError> {
    for (i, n) in nodes.iter_mut().enumerate() {
        if n.kind != NodeKind::Host {
            continue;
        }
        let at = |key: &str| format!("node[{i}].{key}");
        let touching: Vec<usize> = links
            .iter()
            .enumerate()
            .filter(|(_, l)| l.from == n.name || l.to == n.name)
            .map(|(j, _)| j)
            .collect();
        let [only] = touching[..] else {
            let listed: Vec<String> = touching.iter().map(|j| format!("link[{j}]")).collect();
            let found = if listed.is_empty() {
                "none".to_string()
            } else {
                listed.join(", ")
            };
            return Err(ctx.err(
                format!("node[{i}]"),
                format!(
                    "host \"{}\" must have exactly one link (hosts do not forward), found {}: {found}",
                    n.name,
                    touching.len()
                ),
            ));
        };
        // The NIC sends at the rate of the link direction leaving the host.
        let l = &links[only];
        if let Some(rate) = l.rate {
            n.nic_rate.get_or_insert(if l.from == n.name { rate } else { l.reverse_rate.unwrap_or(rate) });
        }
        let txqueuelen = *n.txqueuelen.get_or_insert(DEFAULT_TXQUEUELEN);
        if txqueuelen == 0 {
            return Err(ctx.err(at("txqueuelen"), "expected at least 1 packet, got 0"));
        }
        let ipg = *n.ipg_bytes.get_or_insert(DEFAULT_IPG_BYTES);
        if !IPG_BYTES_RANGE.contains(&ipg) {
            return Err(ctx.err(
                at("ipg_bytes"),
                format!("expected 8 to 1023 bytes, got {ipg}"),
            ));
        }
        let mtu = *n.mtu.get_or_insert(DEFAULT_MTU);
        if !MTU_RANGE.contains(&mtu) {
            return Err(ctx.err(at("mtu"), format!("expected 576 to 9600 bytes, got {mtu}")));
        }
        let ttl = *n.ip_ttl.get_or_insert(DEFAULT_IP_TTL);
        if ttl == 0 {
            return Err(ctx.err(at("ip_ttl"), "expected an IP TTL from 1 to 255, got 0"));
        }
        let version = *n.ip_version.get_or_insert(4);
        if version != 4 && version != 6 {
            return Err(ctx.err(at("ip_version"), format!("expected 4 or 6, got {version}")));
        }
        // `qdisc` is filled in after the flows (scenario::host::pacing): fq when a flow needs it.
        // `profile` stays unset here: each flow resolves its own (spec 06 §2.1).
        if let Some(p) = &n.profile {
            check_profile(p).map_err(|m| ctx.err(at("profile"), m))?;
        }
        if let Some(tcp) = &n.tcp {
            check_params(tcp, ctx.file, &at("tcp"))?;
        }
        if let Some(p) = &n.pacing {
            check_pacing(p, &at("pacing"), ctx)?;
        }
    }
    Ok(())
}

/// `Ok` if `name` is one of `PROFILES`.
pub fn check_profile(name: &str) -> Result<(), String> {
    if PROFILES.contains(&name) {
        return Ok(());
    }
    let names: Vec<String> = PROFILES.iter().map(|p| format!("\"{p}\"")).collect();
    Err(format!(
        "unknown TCP profile \"{name}\"; expected one of {}",
        names.join(", ")
    ))
}
