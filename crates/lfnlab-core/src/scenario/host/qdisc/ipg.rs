//! The `ipg` host qdisc (spec 01 §2.3–2.5): defaults and checks of its keys,
//! and the typed configuration the simulator builds it from.

use std::collections::HashMap;

use crate::scenario::model::{NodeKind, NodeSpec, QdiscSpec};
use crate::scenario::resolve::Ctx;
use crate::scenario::units::{ByteSize, Rate};
use crate::error::InputError;
use crate::host::qdisc::ipg::{IpgClass, IpgConfig, RateSource, RttEstimator, SizeBasis, SmallGapPolicy};
use crate::net::packet::NodeId;
use crate::scenario::node_config::Unresolved;

/// spec 01 §2.3 size limits (wire bytes).
const GAP_PKT_MAX: u64 = 4096;
const GAP_TOTAL_MAX: u64 = 65_536;
/// CHOICE (spec 01 §2.3): a 64-byte minimum frame plus preamble/SFD and IPG.
const GAP_PKT_MIN: u64 = 84;
/// Defaults of the sensitivity switches (spec 01 §2.2: the released PSPacer's estimator; §5 point 3) and of a class's rate source.
const SIZE_BASIS: &str = "mss";
const RTT_ESTIMATOR: &str = "srtt_minus_qtime";
const SMALL_GAP_POLICY: &str = "carry";
const RATE_SOURCE: &str = "tcp_estimate";

/// The keys only `kind = "ipg"` takes, and whether `q` sets each.
pub fn ipg_keys(q: &QdiscSpec) -> [(&'static str, bool); 10] {
    [
        ("gap_pkt_max", q.gap_pkt_max.is_some()),
        ("gap_total_max", q.gap_total_max.is_some()),
        ("gap_pkt_min", q.gap_pkt_min.is_some()),
        ("fixed_gap", q.fixed_gap.is_some()),
        ("size_basis", q.size_basis.is_some()),
        ("rtt_estimator", q.rtt_estimator.is_some()),
        ("small_gap_policy", q.small_gap_policy.is_some()),
        ("rate_source", q.rate_source.is_some()),
        ("rate", q.rate.is_some()),
        ("classes", q.classes.is_some()),
    ]
}

fn parse<T: std::str::FromStr<Err = String>>(v: &str, at: String, ctx: &Ctx) -> Result<T, InputError> {
    v.parse::<T>().map_err(|expected| ctx.err(at, format!("expected {expected}, got \"{v}\"")))
}

/// A rate source and its configured rate must agree: `fixed` and `min` need a
/// rate, `tcp_estimate` takes none. `at` is the table's key path.
fn check_rate(source: &str, rate: Option<Rate>, at: &str, ctx: &Ctx) -> Result<(), InputError> {
    let src: RateSource = parse(source, format!("{at}.rate_source"), ctx)?;
    match (src, rate) {
        (RateSource::TcpEstimate, Some(_)) => Err(ctx.err(format!("{at}.rate"), "`rate` applies only to rate_source \"fixed\" or \"min\"")),
        (RateSource::Fixed | RateSource::Min, None) => Err(ctx.err(format!("{at}.rate"), format!("rate_source \"{source}\" needs a rate, e.g. rate = \"62.5MB/s\""))),
        // A parsed rate is never zero (spec 00 §2.1).
        _ => Ok(()),
    }
}

/// Fills in the defaults of host `ni`'s `ipg` qdisc and checks it against the
/// scenario's nodes.
pub fn resolve_ipg(q: &mut QdiscSpec, ni: usize, nodes: &[NodeSpec], ctx: &Ctx) -> Result<(), InputError> {
    let at = |key: &str| format!("node[{ni}].qdisc.{key}");
    let n = &nodes[ni];
    if q.limit.is_some() {
        return Err(ctx.err(at("limit"), "an ipg qdisc holds `txqueuelen` real packets (gap frames take no slot); set node.txqueuelen"));
    }
    let max = q.gap_pkt_max.get_or_insert(ByteSize::from_bytes(GAP_PKT_MAX)).bytes();
    let total = q.gap_total_max.get_or_insert(ByteSize::from_bytes(GAP_TOTAL_MAX)).bytes();
    let min = q.gap_pkt_min.get_or_insert(ByteSize::from_bytes(GAP_PKT_MIN)).bytes();
    let smallest_frame = 64 + 8 + n.ipg_bytes.unwrap_or(12) as u64;
    if min < smallest_frame {
        return Err(ctx.err(at("gap_pkt_min"), format!("expected at least {smallest_frame} B (a 64-byte frame, preamble and this host's IPG), got {min} B")));
    }
    if max < 2 * min {
        return Err(ctx.err(at("gap_pkt_max"), format!("expected at least twice gap_pkt_min ({} B) so that a split gap never has a frame below the minimum, got {max} B", 2 * min)));
    }
    if total < min {
        return Err(ctx.err(at("gap_total_max"), format!("expected at least gap_pkt_min ({min} B), got {total} B")));
    }
    parse::<SizeBasis>(q.size_basis.get_or_insert_with(|| SIZE_BASIS.into()), at("size_basis"), ctx)?;
    parse::<RttEstimator>(q.rtt_estimator.get_or_insert_with(|| RTT_ESTIMATOR.into()), at("rtt_estimator"), ctx)?;
    parse::<SmallGapPolicy>(q.small_gap_policy.get_or_insert_with(|| SMALL_GAP_POLICY.into()), at("small_gap_policy"), ctx)?;
    let source = q.rate_source.get_or_insert_with(|| RATE_SOURCE.into()).clone();
    check_rate(&source, q.rate, &format!("node[{ni}].qdisc"), ctx)?;
    let classes = q.classes.get_or_insert_with(Vec::new);
    let mut ids = HashMap::new();
    let mut owner: HashMap<&str, usize> = HashMap::new();
    for (ci, c) in classes.iter_mut().enumerate() {
        let cat = format!("node[{ni}].qdisc.classes[{ci}]");
        if c.id == 0 {
            return Err(ctx.err(format!("{cat}.id"), "expected an id of 1 or more (class 0 is the default class: configure it with the qdisc's own rate_source and rate)"));
        }
        if let Some(prev) = ids.insert(c.id, ci) {
            return Err(ctx.err(format!("{cat}.id"), format!("class id {} is already used by classes[{prev}]", c.id)));
        }
        let source = c.rate_source.get_or_insert_with(|| RATE_SOURCE.into()).clone();
        check_rate(&source, c.rate, &cat, ctx)?;
        if c.dst.is_empty() {
            return Err(ctx.err(format!("{cat}.dst"), "expected at least one destination host"));
        }
        for (di, d) in c.dst.iter().enumerate() {
            match nodes.iter().find(|x| &x.name == d) {
                Some(x) if x.kind == NodeKind::Host => {}
                Some(_) => return Err(ctx.err(format!("{cat}.dst[{di}]"), format!("\"{d}\" is not a host"))),
                None => return Err(ctx.err(format!("{cat}.dst[{di}]"), format!("no node is named \"{d}\""))),
            }
            if let Some(prev) = owner.insert(d.as_str(), ci) {
                return Err(ctx.err(format!("{cat}.dst[{di}]"), format!("\"{d}\" is already in classes[{prev}]")));
            }
        }
    }
    classes.sort_by_key(|c| c.id);
    Ok(())
}

fn class(id: u32, dst: Vec<NodeId>, source: &Option<String>, rate: Option<Rate>, at: &dyn Fn(&str) -> String) -> Result<IpgClass, Unresolved> {
    Ok(IpgClass {
        id,
        dst,
        rate_source: parsed(source.as_deref().unwrap_or(RATE_SOURCE), || at("rate_source"))?,
        rate_bytes_per_s: rate.map(|r| r.bps as f64 / 8.0),
    })
}

/// `text` as a `T`, which resolve has checked it is.
fn parsed<T: std::str::FromStr>(text: &str, key: impl FnOnce() -> String) -> Result<T, Unresolved> {
    text.parse().map_err(|_| Unresolved(key()))
}

/// The typed configuration of a resolved `ipg` qdisc `q` holding
/// `limit_packets` on a host whose NIC sends at `line_rate_bps` with a gap of
/// `ipg_bytes`; `node_index` maps node names to ids, `at` gives the key path
/// of a key in `q`.
pub fn ipg_config(
    q: &QdiscSpec,
    limit_packets: u32,
    ipg_bytes: u32,
    line_rate_bps: u64,
    node_index: &HashMap<&str, usize>,
    at: &dyn Fn(&str) -> String,
) -> Result<IpgConfig, Unresolved> {
    let mut classes = vec![class(0, Vec::new(), &q.rate_source, q.rate, at)?];
    for (ci, c) in q.classes.iter().flatten().enumerate() {
        let dst = c.dst.iter().filter_map(|d| node_index.get(d.as_str()).map(|&i| i as NodeId)).collect();
        classes.push(class(c.id, dst, &c.rate_source, c.rate, &|k| at(&format!("classes[{ci}].{k}")))?);
    }
    let get = |v: &Option<String>, d: &str| v.clone().unwrap_or_else(|| d.to_string());
    Ok(IpgConfig {
        limit_packets: limit_packets as u64,
        line_rate_bps,
        ipg_bytes,
        gap_pkt_max_bytes: q.gap_pkt_max.map_or(GAP_PKT_MAX, |b| b.bytes()),
        gap_total_max_bytes: q.gap_total_max.map_or(GAP_TOTAL_MAX, |b| b.bytes()),
        gap_pkt_min_bytes: q.gap_pkt_min.map_or(GAP_PKT_MIN, |b| b.bytes()),
        fixed_gap_bytes: q.fixed_gap.map(|b| b.bytes()),
        size_basis: parsed(&get(&q.size_basis, SIZE_BASIS), || at("size_basis"))?,
        rtt_estimator: parsed(&get(&q.rtt_estimator, RTT_ESTIMATOR), || at("rtt_estimator"))?,
        small_gap_policy: parsed(&get(&q.small_gap_policy, SMALL_GAP_POLICY), || at("small_gap_policy"))?,
        classes,
    })
}

