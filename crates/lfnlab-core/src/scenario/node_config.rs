//! The typed stage between a resolved scenario and the core (issue 36 item 5).
//!
//! `resolve` fills every default into the scenario's own form (`NodeSpec`:
//! one flat struct of `Option`s, so that the `scenario.toml` written with the
//! results shows every value used, spec 00 §2.4). The core does not read that
//! form: `node_configs` turns each resolved node into a [`NodeConfig`], whose
//! [`KindConfig`] holds, per kind, only what that kind uses, every value typed
//! and present. A value that resolve should have filled and did not is an
//! [`Unresolved`] error naming its key path, never a panic.

use std::collections::HashMap;

use super::model::{NodeKind, NodeSpec, QdiscSpec, Scenario};
use crate::engine::time::Span;
use crate::host::cpu::config::CpuConfig;
use crate::host::nic::config::NicConfig;
use crate::host::qdisc::fq::FqConfig;
use crate::host::qdisc::ipg::IpgConfig;
use crate::host::qdisc::tcp_nic::config::TcpNicConfig;
use crate::monitor::host_io::MemoryModel;
use crate::net::pause::XoffConfig;
use crate::net::switch::config::SwitchConfig;
use crate::quickstart::router_config::RouterConfig;

/// A scenario that skipped `resolve`: the key path of the first value it
/// lacks. An internal error (every loader resolves), not bad input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unresolved(pub String);

impl std::fmt::Display for Unresolved {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "scenario is not resolved: {}", self.0)
    }
}

/// `v`, or the key path `key` as [`Unresolved`].
pub(crate) fn need<T>(v: Option<T>, key: impl FnOnce() -> String) -> Result<T, Unresolved> {
    v.ok_or_else(|| Unresolved(key()))
}

/// One node as the core builds it.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeConfig {
    pub name: String,
    /// The Quick-Start router function on every egress interface of the node
    /// (spec 02 §2.5.1); a link's own `quickstart` table replaces it there.
    pub quickstart: Option<RouterConfig>,
    /// The reaction delay, in pause quanta, of the node's ports if they honour
    /// 802.3x PAUSE (spec 04 §2.5).
    pub pause_react_quanta: Option<u32>,
    pub kind: KindConfig,
}

/// What each kind of node is built from.
#[derive(Clone, Debug, PartialEq)]
pub enum KindConfig {
    Host(Box<HostConfig>),
    /// A router or an emulator: forwards through one egress queue per link.
    Forwarder { pause: Option<PauseGeneration> },
    Switch(Box<SwitchNodeConfig>),
}

/// A host: its NIC, IP fields, qdisc and the optional models of spec 01 §2.6
/// and spec 04 §2.4–2.7.
#[derive(Clone, Debug, PartialEq)]
pub struct HostConfig {
    /// The NIC's line rate (default: the rate of the host's link direction).
    pub nic_rate_bps: u64,
    /// Gap after every frame the NIC sends (spec 06 §1.2 U2).
    pub ipg_bytes: u32,
    pub mtu_bytes: u32,
    /// 4 or 6.
    pub ip_version: u8,
    pub ip_ttl: u8,
    pub qdisc: HostQdiscConfig,
    pub memory: MemoryModel,
    /// The NIC pipeline of spec 04 §2.4–2.6, if the host has one.
    pub nic: Option<NicConfig>,
    /// The host CPU of spec 04 §2.7 and its accounting bin, if the host has one.
    pub cpu: Option<(CpuConfig, Span)>,
}

/// A host's qdisc (spec 06 §5.3).
#[derive(Clone, Debug, PartialEq)]
pub enum HostQdiscConfig {
    /// `pfifo` holding `txqueuelen` packets.
    Pfifo { limit_packets: u64 },
    Fq(FqConfig),
    /// Gap-packet pacing (spec 01).
    Ipg(Box<IpgConfig>),
    /// The TCP-aware NIC (spec 03 §2.6).
    TcpNic(TcpNicConfig),
}

/// A switch (spec 05 §2.2–2.4).
#[derive(Clone, Debug, PartialEq)]
pub struct SwitchNodeConfig {
    pub switch: SwitchConfig,
    /// The preset the configuration started from (`switch.config`).
    pub preset: String,
    pub pause: Option<PauseGeneration>,
}

/// A switch or router that generates PAUSE per ingress port (spec 04 §2.5).
#[derive(Clone, Debug, PartialEq)]
pub struct PauseGeneration {
    /// Thresholds; `refresh` zero means half the pause duration at each port's rate.
    pub xoff: XoffConfig,
    /// The neighbours whose ingress ports generate (`fc.sw_peers`).
    pub peers: Vec<String>,
}

impl NodeConfig {
    /// The host part, if the node is a host.
    pub fn host(&self) -> Option<&HostConfig> {
        match &self.kind {
            KindConfig::Host(h) => Some(h),
            _ => None,
        }
    }

    /// The PAUSE generation of a switch or router, if it generates.
    pub fn pause_generation(&self) -> Option<&PauseGeneration> {
        match &self.kind {
            KindConfig::Host(_) => None,
            KindConfig::Forwarder { pause } => pause.as_ref(),
            KindConfig::Switch(s) => s.pause.as_ref(),
        }
    }
}

/// Each node's index in `[[node]]` by its name: how a name in a flow, route or link is resolved.
pub fn node_index(s: &Scenario) -> HashMap<&str, usize> {
    s.node.iter().enumerate().map(|(i, n)| (n.name.as_str(), i)).collect()
}

/// Every node of the resolved scenario `s`, in node order.
pub fn node_configs(s: &Scenario) -> Result<Vec<NodeConfig>, Unresolved> {
    let index = node_index(s);
    s.node.iter().enumerate().map(|(i, n)| node_config(i, n, &index)).collect()
}

fn node_config(i: usize, n: &NodeSpec, index: &HashMap<&str, usize>) -> Result<NodeConfig, Unresolved> {
    let at = |key: &str| format!("node[{i}].{key}");
    let kind = match n.kind {
        NodeKind::Host => KindConfig::Host(Box::new(host_config(n, index, &at)?)),
        NodeKind::Router | NodeKind::Emulator => KindConfig::Forwarder { pause: pause_generation(n) },
        NodeKind::Switch => {
            let sw = need(n.switch.as_ref(), || at("switch"))?;
            KindConfig::Switch(Box::new(SwitchNodeConfig {
                switch: super::net::switch::switch_config(sw, &|k| at(&format!("switch.{k}")))?,
                preset: sw.config.clone().unwrap_or_default(),
                pause: pause_generation(n),
            }))
        }
    };
    Ok(NodeConfig {
        name: n.name.clone(),
        quickstart: n.quickstart.as_ref().map(super::quickstart::router_qs_config),
        pause_react_quanta: super::host::nic::honour_react_quanta(n),
        kind,
    })
}

fn pause_generation(n: &NodeSpec) -> Option<PauseGeneration> {
    super::host::nic::switch_xoff_config(n).map(|(xoff, peers)| PauseGeneration { xoff, peers: peers.to_vec() })
}

fn host_config(n: &NodeSpec, index: &HashMap<&str, usize>, at: &dyn Fn(&str) -> String) -> Result<HostConfig, Unresolved> {
    let nic_rate_bps = need(n.nic_rate, || at("nic_rate"))?.bps;
    let mtu_bytes = need(n.mtu, || at("mtu"))?;
    let txqueuelen = need(n.txqueuelen, || at("txqueuelen"))?;
    let ipg_bytes = need(n.ipg_bytes, || at("ipg_bytes"))?;
    let qdisc = match n.qdisc.as_ref() {
        None => HostQdiscConfig::Pfifo { limit_packets: txqueuelen as u64 },
        Some(q) => host_qdisc(q, nic_rate_bps, txqueuelen, ipg_bytes, index, &|k| at(&format!("qdisc.{k}")))?,
    };
    Ok(HostConfig {
        nic_rate_bps,
        ipg_bytes,
        mtu_bytes,
        ip_version: need(n.ip_version, || at("ip_version"))?,
        ip_ttl: need(n.ip_ttl, || at("ip_ttl"))?,
        qdisc,
        memory: super::host::memory::memory_model(n),
        nic: super::host::nic::nic_config(n),
        cpu: n.cpu.as_ref().map(|c| super::host::cpu::cpu_config(c, &|k| at(&format!("cpu.{k}")))).transpose()?,
    })
}

/// The qdisc `q` of a host whose NIC sends at `line_rate_bps`.
fn host_qdisc(
    q: &QdiscSpec,
    line_rate_bps: u64,
    txqueuelen: u32,
    ipg_bytes: u32,
    index: &HashMap<&str, usize>,
    at: &dyn Fn(&str) -> String,
) -> Result<HostQdiscConfig, Unresolved> {
    Ok(match q.kind.as_str() {
        "pfifo" => HostQdiscConfig::Pfifo { limit_packets: txqueuelen as u64 },
        "fq" => HostQdiscConfig::Fq(super::host::pacing::fq_config(q, at)?),
        "ipg" => HostQdiscConfig::Ipg(Box::new(super::host::qdisc::ipg::ipg_config(q, txqueuelen, ipg_bytes, line_rate_bps, index, at)?)),
        "tcp_nic" => HostQdiscConfig::TcpNic(super::host::qdisc::tcp_nic::tcp_nic_config(q, line_rate_bps)),
        _ => return Err(Unresolved(at("kind"))),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn configs(text: &str) -> Vec<NodeConfig> {
        let s = crate::scenario::load_str(text, "<test>", &[]).expect("a valid scenario");
        node_configs(&s).expect("a resolved scenario converts")
    }

    const DUMBBELL: &str = r#"
        [sim]
        duration = "1s"
        [[node]]
        name = "a"
        kind = "host"
        [[node]]
        name = "r"
        kind = "router"
        [[node]]
        name = "b"
        kind = "host"
        mtu = 9000
        [[link]]
        from = "a"
        to = "r"
        rate = "1Gbps"
        delay = "1ms"
        [[link]]
        from = "r"
        to = "b"
        rate = "100Mbps"
        delay = "1ms"
        [[flow]]
        name = "f"
        kind = "tcp_bulk"
        from = "a"
        to = "b"
    "#;

    #[test]
    fn every_kind_holds_its_own_defaults() {
        let n = configs(DUMBBELL);
        let a = n[0].host().expect("a is a host");
        assert_eq!(a.nic_rate_bps, 1_000_000_000, "the NIC rate defaults to the link's");
        assert_eq!((a.mtu_bytes, a.ipg_bytes, a.ip_version, a.ip_ttl), (1500, 12, 4, 64));
        // The default profile (linux-modern) paces with fq (spec 06 §2.1):
        // quantum 2 MTU, initial quantum 10 MTU (spec 06 §5.3).
        let HostQdiscConfig::Fq(fq) = a.qdisc else { panic!("a paces with fq, got {:?}", a.qdisc) };
        assert_eq!((fq.quantum_bytes, fq.initial_quantum_bytes, fq.limit_packets), (3000, 15000, 10_000));
        assert!(matches!(n[1].kind, KindConfig::Forwarder { pause: None }));
        let b = n[2].host().expect("b is a host");
        assert_eq!((b.nic_rate_bps, b.mtu_bytes), (100_000_000, 9000));
        assert_eq!(b.qdisc, HostQdiscConfig::Pfifo { limit_packets: 1000 }, "no flow leaves b");
    }

    #[test]
    fn an_unresolved_scenario_names_the_missing_key() {
        let mut s = crate::scenario::load_str(DUMBBELL, "<test>", &[]).expect("a valid scenario");
        s.node[2].ip_ttl = None;
        assert_eq!(node_configs(&s), Err(Unresolved("node[2].ip_ttl".into())));
        s.node[2].ip_ttl = Some(64);
        s.node[0].cpu = Some(Default::default());
        assert_eq!(node_configs(&s), Err(Unresolved("node[0].cpu.freq".into())));
    }
}
