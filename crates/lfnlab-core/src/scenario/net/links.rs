//! `[[link]]` checks and queue defaults (spec 00 §2.2), and the node graph
//! used to check flow routes and monitor links.

use std::collections::{BTreeMap, VecDeque};

use crate::scenario::model::{ImpairSpec, LinkSpec, LossSpec, NodeKind, NodeSpec, QueueSpec};
use crate::scenario::net::burst_red::{check_droptail_only, resolve_burst_red, Segment};
use crate::scenario::quickstart::{check_proc_at_host, resolve_router_qs};
use crate::scenario::resolve::Ctx;
use crate::scenario::units::{Rate, TimeSpan};
use crate::net::phy::Phy;
use crate::error::InputError;

/// CHOICE: a router/emulator egress queue that is not configured is drop-tail
/// with 1000 packets, like a Linux txqueuelen (spec 06 §5.1).
const DEFAULT_QUEUE_PACKETS: u64 = 1000;

/// Nodes by name and the links between them.
pub struct Graph {
    index: BTreeMap<String, usize>,
    kinds: Vec<NodeKind>,
    neighbours: Vec<Vec<usize>>,
    /// Link index by unordered node pair (lower index first).
    links: BTreeMap<(usize, usize), usize>,
}

impl Graph {
    /// Requires unique node names (`nodes::check_nodes`).
    pub fn new(nodes: &[NodeSpec]) -> Graph {
        Graph {
            index: nodes
                .iter()
                .enumerate()
                .map(|(i, n)| (n.name.clone(), i))
                .collect(),
            kinds: nodes.iter().map(|n| n.kind).collect(),
            neighbours: vec![Vec::new(); nodes.len()],
            links: BTreeMap::new(),
        }
    }

    pub fn find(&self, name: &str) -> Option<usize> {
        self.index.get(name).copied()
    }

    /// An error message for a name that is not a node.
    pub fn unknown(&self, name: &str) -> String {
        let names: Vec<&str> = self.index.keys().map(String::as_str).collect();
        if names.is_empty() {
            format!("no node named \"{name}\"; the scenario has no [[node]]")
        } else {
            format!("no node named \"{name}\"; nodes are: {}", names.join(", "))
        }
    }

    /// The link joining `a` and `b` in either direction.
    pub fn link_between(&self, a: usize, b: usize) -> Option<usize> {
        self.links.get(&(a.min(b), a.max(b))).copied()
    }

    fn add_link(&mut self, a: usize, b: usize, link: usize) {
        self.links.insert((a.min(b), a.max(b)), link);
        self.neighbours[a].push(b);
        self.neighbours[b].push(a);
    }

    /// Whether `to` can be reached from `from` through routers and emulators
    /// only: hosts do not forward. Links are full duplex, so this is also the
    /// way back.
    pub fn route_exists(&self, from: usize, to: usize) -> bool {
        let mut seen = vec![false; self.kinds.len()];
        let mut queue = VecDeque::from([from]);
        seen[from] = true;
        while let Some(n) = queue.pop_front() {
            for &m in &self.neighbours[n] {
                if m == to {
                    return true;
                }
                if !seen[m] && self.kinds[m] != NodeKind::Host {
                    seen[m] = true;
                    queue.push_back(m);
                }
            }
        }
        false
    }
}

/// Checks every link, fills in its queues and loss defaults, and adds it to `graph`.
pub fn resolve_links(
    links: &mut [LinkSpec],
    nodes: &[NodeSpec],
    graph: &mut Graph,
    duration: TimeSpan,
    ctx: &Ctx,
) -> Result<(), InputError> {
    for (i, l) in links.iter_mut().enumerate() {
        let at = |key: &str| format!("link[{i}].{key}");
        // spec 02 §2.5.1: a Quick-Start interface on either egress.
        if let Some(q) = &mut l.quickstart {
            resolve_router_qs(q, &at("quickstart"), ctx)?;
        }
        if let Some(q) = &mut l.reverse_quickstart {
            resolve_router_qs(q, &at("reverse_quickstart"), ctx)?;
        }
        let from = graph
            .find(&l.from)
            .ok_or_else(|| ctx.err(at("from"), graph.unknown(&l.from)))?;
        let to = graph
            .find(&l.to)
            .ok_or_else(|| ctx.err(at("to"), graph.unknown(&l.to)))?;
        if from == to {
            return Err(ctx.err(
                at("to"),
                format!(
                    "a link must join two different nodes; both ends are \"{}\"",
                    l.to
                ),
            ));
        }
        if let Some(j) = graph.link_between(from, to) {
            return Err(ctx.err(
                format!("link[{i}]"),
                format!(
                    "link[{j}] already joins \"{}\" and \"{}\"; a link is full duplex and at most one may join a pair of nodes",
                    l.from, l.to
                ),
            ));
        }
        graph.add_link(from, to, i);
        for (q, end, name) in [(&l.quickstart, from, "quickstart"), (&l.reverse_quickstart, to, "reverse_quickstart")] {
            if let Some(q) = q.as_ref().filter(|_| nodes[end].kind == NodeKind::Host) {
                check_proc_at_host(q, &at(name), &nodes[end].name, ctx)?;
            }
        }
        let rate = resolve_phy(l, &at, ctx)?;
        l.reverse_rate.get_or_insert(rate);
        let droptail = |limit_packets| QueueSpec {
            kind: "droptail".into(),
            limit_packets,
            ..QueueSpec::default()
        };
        let forward = Segment { rate_bps: rate.bps(), delay: l.delay };
        let reverse = Segment { rate_bps: l.reverse_rate.unwrap_or(rate).bps(), delay: l.delay };
        resolve_queue(
            &mut l.queue,
            &nodes[from],
            droptail(Some(DEFAULT_QUEUE_PACKETS)),
            forward,
            at("queue"),
            ctx,
        )?;
        // spec 00 §2.2: the reverse egress queue never drops ACKs unless configured.
        resolve_queue(
            &mut l.reverse_queue,
            &nodes[to],
            droptail(None),
            reverse,
            at("reverse_queue"),
            ctx,
        )?;
        if let Some(im) = &mut l.impair {
            resolve_impair(im, &at("impair"), ctx)?;
        }
        if let Some(loss) = &mut l.loss {
            resolve_loss(loss, &at("loss"), duration, ctx)?;
        }
    }
    Ok(())
}

/// The link's rate: given, or the R_mac of its `phy` (spec 04 §2.2); a PHY
/// and a different rate contradict each other.
fn resolve_phy(l: &mut LinkSpec, at: &dyn Fn(&str) -> String, ctx: &Ctx) -> Result<Rate, InputError> {
    let Some(name) = l.phy.as_deref() else {
        return l.rate.ok_or_else(|| ctx.err(at("rate"), "missing required key \"rate\": the link rate, such as \"10Gbps\" (or give a `phy`)"));
    };
    let phy: Phy = name.parse().map_err(|m| ctx.err(at("phy"), format!("expected {m}, got \"{name}\"")))?;
    let r_mac = Rate::from_bps(phy.r_mac_bps());
    for (key, given) in [("rate", l.rate), ("reverse_rate", l.reverse_rate)] {
        if let Some(r) = given.filter(|r| r.bps() != r_mac.bps()) {
            return Err(ctx.err(
                at(key),
                format!("phy \"{name}\" runs at R_mac = {} bit/s, but {key} is {} bit/s; give one or the other", r_mac.bps(), r.bps()),
            ));
        }
    }
    l.rate = Some(r_mac);
    Ok(r_mac)
}

/// A router/emulator egress queue: `default` if unset. A host's egress is its
/// interface queue (spec 06 §5.1) and a switch's is its model's, so a queue
/// there is an error and stays unset.
fn resolve_queue(
    queue: &mut Option<QueueSpec>,
    egress: &NodeSpec,
    default: QueueSpec,
    segment: Segment,
    at: String,
    ctx: &Ctx,
) -> Result<(), InputError> {
    if egress.kind == NodeKind::Host {
        if queue.is_some() {
            return Err(ctx.err(
                at,
                format!(
                    "the egress of host \"{}\" is its interface queue; set txqueuelen on the node",
                    egress.name
                ),
            ));
        }
        return Ok(());
    }
    if egress.kind == NodeKind::Switch {
        // The switch model holds its own queues (spec 05 §2.2).
        if queue.is_some() {
            return Err(ctx.err(
                at,
                format!("the egress of switch \"{}\" is set by its model (`switch` on the node), not by a link queue", egress.name),
            ));
        }
        return Ok(());
    }
    let q = queue.get_or_insert(default);
    match q.kind.as_str() {
        "droptail" => check_droptail_only(q, &at, ctx)?,
        "burst_red" => resolve_burst_red(q, segment, &at, ctx)?,
        other => {
            return Err(ctx.err(
                format!("{at}.kind"),
                format!("expected \"droptail\" or \"burst_red\", got \"{other}\""),
            ))
        }
    }
    if q.limit.is_some_and(|b| b.bytes() == 0) {
        return Err(ctx.err(
            format!("{at}.limit"),
            "a byte limit must be greater than zero (omit it for no limit)",
        ));
    }
    if q.limit_packets == Some(0) {
        return Err(ctx.err(
            format!("{at}.limit_packets"),
            "a packet limit must be at least 1 (omit it for no limit)",
        ));
    }
    Ok(())
}

/// Random loss: Bernoulli (spec 06 §7 V3) with p in [0, 1], or a
/// Gilbert–Elliott circuit (spec 04 §2.12); on data frames by default.
fn resolve_loss(loss: &mut LossSpec, at: &str, duration: TimeSpan, ctx: &Ctx) -> Result<(), InputError> {
    let probability = |key: &str, v: f64| -> Result<(), InputError> {
        if (0.0..=1.0).contains(&v) {
            Ok(())
        } else {
            Err(ctx.err(format!("{at}.{key}"), format!("expected a probability from 0 to 1, got {v}")))
        }
    };
    let only = |keys: &[(&str, bool)], kind: &str| -> Result<(), InputError> {
        match keys.iter().find(|(_, given)| *given) {
            Some((key, _)) => Err(ctx.err(format!("{at}.{key}"), format!("does not apply to kind \"{kind}\""))),
            None => Ok(()),
        }
    };
    match loss.kind.as_str() {
        "bernoulli" => {
            only(
                &[
                    ("t_good", loss.t_good.is_some()),
                    ("t_bad", loss.t_bad.is_some()),
                    ("p_good", loss.p_good.is_some()),
                    ("p_bad", loss.p_bad.is_some()),
                    ("capacity_bad", loss.capacity_bad.is_some()),
                ],
                "bernoulli",
            )?;
            let Some(p) = loss.p else {
                return Err(ctx.err(format!("{at}.p"), "missing required key: the drop probability of a \"bernoulli\" loss"));
            };
            probability("p", p)?;
        }
        "gilbert_elliott" => {
            only(&[("p", loss.p.is_some())], "gilbert_elliott (use p_good and p_bad)")?;
            for key in ["t_good", "t_bad"] {
                let v = if key == "t_good" { loss.t_good } else { loss.t_bad };
                match v {
                    None => return Err(ctx.err(format!("{at}.{key}"), "missing required key: a mean stay time of the Gilbert–Elliott circuit")),
                    Some(t) if t.ps() == 0 => return Err(ctx.err(format!("{at}.{key}"), "expected a time greater than zero")),
                    _ => {}
                }
            }
            probability("p_good", *loss.p_good.get_or_insert(0.0))?;
            let Some(p_bad) = loss.p_bad else {
                return Err(ctx.err(format!("{at}.p_bad"), "missing required key: the loss probability in the Bad state"));
            };
            probability("p_bad", p_bad)?;
            let kappa = *loss.capacity_bad.get_or_insert(1.0);
            if !(kappa.is_finite() && kappa > 0.0 && kappa <= 1.0) {
                return Err(ctx.err(format!("{at}.capacity_bad"), format!("expected a capacity factor in (0, 1], got {kappa}")));
            }
        }
        other => {
            return Err(ctx.err(format!("{at}.kind"), format!("expected \"bernoulli\" or \"gilbert_elliott\", got \"{other}\"")));
        }
    }
    let applies_to = loss.applies_to.get_or_insert_with(|| "data".into());
    if applies_to != "data" && applies_to != "all" {
        return Err(ctx.err(
            format!("{at}.applies_to"),
            format!("expected \"data\" or \"all\", got \"{applies_to}\""),
        ));
    }
    let start = *loss.start.get_or_insert(TimeSpan::ZERO);
    let stop = *loss.stop.get_or_insert(duration);
    if stop <= start {
        return Err(ctx.err(format!("{at}.stop"), format!("stop ({stop}) must be after start ({start})")));
    }
    Ok(())
}

/// Jitter and reordering (spec 04 §2.12); every key defaults to none.
fn resolve_impair(im: &mut ImpairSpec, at: &str, ctx: &Ctx) -> Result<(), InputError> {
    im.jitter.get_or_insert(TimeSpan::ZERO);
    let p = *im.p_reorder.get_or_insert(0.0);
    if !(0.0..=1.0).contains(&p) {
        return Err(ctx.err(format!("{at}.p_reorder"), format!("expected a probability from 0 to 1, got {p}")));
    }
    let d = *im.reorder_delay.get_or_insert(TimeSpan::ZERO);
    if p > 0.0 && d.ps() == 0 {
        return Err(ctx.err(format!("{at}.reorder_delay"), "expected a time greater than zero when p_reorder > 0"));
    }
    Ok(())
}
