//! `[[node]] kind = "switch"` (spec 05 §2.2–2.4): a named configuration of the
//! spec 05 §2.2 table (`switch.config`, default `oq_cs`) with any parameter
//! overridden by its own key, all under `switch` (CHOICE: one table instead of
//! the spec's `sw.`/`mem.`/`voq.`/`fabric.`/`iq.` prefixes; the names map
//! one to one and are listed in docs/switches.md). `arbiter` on the node is the
//! spec 00 §2.2 shorthand for `switch.sched`.
//!
//! Resolving fills in every parameter, and draws the clock offset δ_sw from
//! U[−clock_ppm_max, +clock_ppm_max] with the run's seed when `clock_ppm` is
//! not given (spec 05 §2.4), so `scenario.toml` shows the value used.

use std::fmt;

use schemars::JsonSchema;
use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

use crate::scenario::model::{LinkSpec, NodeKind, NodeSpec};
use crate::scenario::node_config::{need, Unresolved};
use crate::scenario::resolve::Ctx;
use crate::scenario::units::{ByteSize, TimeSpan};
use crate::engine::rng::Stream;
use crate::error::InputError;
use crate::net::switch::config::{self as sc, SwitchConfig, QUANTUM_INFINITE};

/// CHOICE (spec 05 §2.4): ε of the switch clock draw, ±50 ppm.
const DEFAULT_CLOCK_PPM_MAX: f64 = 50.0;

/// `node.switch`: a named configuration of spec 05 §2.2 (`config`) with any
/// parameter overridden by its own key; every key is filled in when resolved.
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SwitchSpec {
    /// A named configuration (spec 05 §2.2 table), default `oq_cs`.
    pub config: Option<String>,
    /// `oq`, `iq_fifo`, `voq` or `rr_simple` (`sw` model family).
    pub model: Option<String>,
    /// `sw.ports`.
    pub ports: Option<u16>,
    /// `mem.unit`: `byte` or `cell`.
    pub mem_unit: Option<String>,
    /// `mem.policy`: `CS`, `SP` or `DT`. On `rr_simple`, `SP` (default) is the static split of spec 05 §2.2 M4 and `CS` or `DT` the shared-pool variant: every sub-queue draws on `B_total`.
    pub mem_policy: Option<String>,
    /// `B_total`.
    pub memory: Option<ByteSize>,
    /// `B_q` (M1 SP), `B_in` (M2, M3 per_input) or `B_sub` (M4).
    pub queue_limit: Option<ByteSize>,
    /// Dynamic-threshold α.
    pub alpha: Option<f64>,
    /// `B_out`.
    pub out_limit: Option<ByteSize>,
    /// `voq.pool`: `per_input` or `global`.
    pub pool: Option<String>,
    /// `voq.sched`: `islip`, `pim` or `wfa`.
    pub sched: Option<String>,
    /// `voq.iter`.
    pub iterations: Option<u32>,
    /// `voq.quantum`: a positive integer or "inf".
    pub quantum: Option<Quantum>,
    /// `fabric.mode`: `cell` or `packet`.
    pub fabric: Option<String>,
    /// Cell payload `C`.
    pub cell: Option<ByteSize>,
    /// Fabric speedup `s`.
    pub speedup: Option<f64>,
    /// `iq.select`: `rr` or `random`.
    pub iq_select: Option<String>,
    /// `L_fwd`.
    pub lookup: Option<TimeSpan>,
    /// `J`.
    pub jitter: Option<TimeSpan>,
    /// δ_sw in ppm; drawn when unset.
    pub clock_ppm: Option<f64>,
    /// ε of the δ_sw draw, default 50 ppm.
    pub clock_ppm_max: Option<f64>,
}

/// A service quantum: units, or "inf" for exhaustive service.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Quantum(pub u32);

impl Serialize for Quantum {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.0 == QUANTUM_INFINITE { s.serialize_str("inf") } else { s.serialize_u32(self.0) }
    }
}

impl<'de> Deserialize<'de> for Quantum {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Quantum, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Quantum;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a positive integer number of cells or frames, or \"inf\"")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Quantum, E> {
                match u32::try_from(v) {
                    Ok(q) if q > 0 && q != QUANTUM_INFINITE => Ok(Quantum(q)),
                    _ => Err(E::invalid_value(de::Unexpected::Signed(v), &self)),
                }
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Quantum, E> {
                if v == "inf" { Ok(Quantum(QUANTUM_INFINITE)) } else { Err(E::invalid_value(de::Unexpected::Str(v), &self)) }
            }
        }
        d.deserialize_any(V)
    }
}

impl JsonSchema for Quantum {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Quantum".into()
    }
    // By hand: the Deserialize above takes an integer or the string "inf".
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "title": "quantum",
            "description": "A positive integer number of cells or frames served per turn, or \"inf\" for exhaustive service.",
            "oneOf": [
                { "type": "integer", "minimum": 1, "maximum": QUANTUM_INFINITE - 1 },
                { "const": "inf" },
            ],
            "examples": [1, "inf"],
        })
    }
}

fn parse<T: std::str::FromStr<Err = String>>(v: &Option<String>, key: &str, at: &dyn Fn(&str) -> String, ctx: &Ctx) -> Result<Option<T>, InputError> {
    v.as_deref().map(|s| s.parse::<T>().map_err(|e| ctx.err(at(key), format!("expected {e}")))).transpose()
}

fn model_name(m: sc::Model) -> &'static str {
    match m {
        sc::Model::Oq => "oq",
        sc::Model::IqFifo => "iq_fifo",
        sc::Model::Voq => "voq",
        sc::Model::RrSimple => "rr_simple",
    }
}

/// The configuration a resolved switch table `s` describes; `at` gives the
/// key path of a key in `s`.
pub fn switch_config(s: &SwitchSpec, at: &dyn Fn(&str) -> String) -> Result<SwitchConfig, Unresolved> {
    let preset = need(s.config.as_deref(), || at("config"))?;
    let mut c = need(SwitchConfig::preset(preset), || at("config"))?;
    apply(&mut c, s, at, &Ctx { file: "<resolved>" }).map_err(|e| Unresolved(e.key_path))?;
    Ok(c)
}

/// Overrides of `s` on top of `c`.
fn apply(c: &mut SwitchConfig, s: &SwitchSpec, at: &dyn Fn(&str) -> String, ctx: &Ctx) -> Result<(), InputError> {
    if let Some(m) = parse::<sc::Model>(&s.model, "model", at, ctx)?.filter(|m| *m != c.model) {
        // A different family starts from that family's defaults.
        *c = SwitchConfig { clock_ppm: c.clock_ppm, ..SwitchConfig::defaults(m) };
    }
    c.ports = s.ports.unwrap_or(c.ports);
    c.mem_unit = parse(&s.mem_unit, "mem_unit", at, ctx)?.unwrap_or(c.mem_unit);
    c.policy = parse(&s.mem_policy, "mem_policy", at, ctx)?.unwrap_or(c.policy);
    c.total_bytes = s.memory.map_or(c.total_bytes, |b| b.bytes);
    c.queue_limit_bytes = s.queue_limit.map_or(c.queue_limit_bytes, |b| b.bytes);
    c.dt_alpha = s.alpha.unwrap_or(c.dt_alpha);
    c.out_limit_bytes = s.out_limit.map_or(c.out_limit_bytes, |b| b.bytes);
    c.voq_pool = parse(&s.pool, "pool", at, ctx)?.unwrap_or(c.voq_pool);
    c.sched = parse(&s.sched, "sched", at, ctx)?.unwrap_or(c.sched);
    c.iterations = s.iterations.unwrap_or(c.iterations);
    c.quantum = s.quantum.map_or(c.quantum, |q| q.0);
    c.fabric_mode = parse(&s.fabric, "fabric", at, ctx)?.unwrap_or(c.fabric_mode);
    c.cell_bytes = match s.cell {
        Some(b) => u32::try_from(b.bytes).map_err(|_| ctx.err(at("cell"), "a cell of at most 4 GiB"))?,
        None => c.cell_bytes,
    };
    c.speedup = s.speedup.unwrap_or(c.speedup);
    c.iq_select = parse(&s.iq_select, "iq_select", at, ctx)?.unwrap_or(c.iq_select);
    c.lookup = s.lookup.map_or(c.lookup, |t| t.span);
    c.jitter = s.jitter.map_or(c.jitter, |t| t.span);
    c.clock_ppm = s.clock_ppm.unwrap_or(c.clock_ppm);
    Ok(())
}

/// Write every parameter of `c` back into `s` (the resolved form).
fn fill(s: &mut SwitchSpec, c: &SwitchConfig) {
    use sc::{FabricMode, IqSelect, MemUnit, Sched, SharePolicy, VoqPool};
    s.model = Some(model_name(c.model).into());
    s.ports = Some(c.ports);
    s.mem_unit = Some(match c.mem_unit { MemUnit::Byte => "byte", MemUnit::Cell => "cell" }.into());
    s.mem_policy = Some(match c.policy { SharePolicy::Cs => "CS", SharePolicy::Sp => "SP", SharePolicy::Dt => "DT" }.into());
    s.memory = Some(ByteSize { bytes: c.total_bytes });
    s.queue_limit = Some(ByteSize { bytes: c.queue_limit_bytes });
    s.alpha = Some(c.dt_alpha);
    s.out_limit = Some(ByteSize { bytes: c.out_limit_bytes });
    s.pool = Some(match c.voq_pool { VoqPool::PerInput => "per_input", VoqPool::Global => "global" }.into());
    s.sched = Some(match c.sched { Sched::Islip => "islip", Sched::Pim => "pim", Sched::Wfa => "wfa" }.into());
    s.iterations = Some(c.iterations);
    s.quantum = Some(Quantum(c.quantum));
    s.fabric = Some(match c.fabric_mode { FabricMode::Cell => "cell", FabricMode::Packet => "packet" }.into());
    s.cell = Some(ByteSize { bytes: c.cell_bytes as u64 });
    s.speedup = Some(c.speedup);
    s.iq_select = Some(match c.iq_select { IqSelect::Rr => "rr", IqSelect::Random => "random" }.into());
    s.lookup = Some(TimeSpan::from_span(c.lookup));
    s.jitter = Some(TimeSpan::from_span(c.jitter));
    s.clock_ppm = Some(c.clock_ppm);
}

/// Every switch node: its configuration checked and filled in; every other
/// node: no switch keys.
pub fn resolve_switches(nodes: &mut [NodeSpec], links: &[LinkSpec], seed: u64, ctx: &Ctx) -> Result<(), InputError> {
    for (i, n) in nodes.iter_mut().enumerate() {
        let at = |key: &str| format!("node[{i}].switch.{key}");
        if n.kind != NodeKind::Switch {
            if n.switch.is_some() || n.arbiter.is_some() {
                let key = if n.switch.is_some() { "switch" } else { "arbiter" };
                return Err(ctx.err(format!("node[{i}].{key}"), format!("`{key}` applies to switches only; node \"{}\" is not one", n.name)));
            }
            continue;
        }
        if n.fc.is_some() || n.quickstart.is_some() {
            let key = if n.fc.is_some() { "fc" } else { "quickstart" };
            return Err(ctx.err(
                format!("node[{i}].{key}"),
                format!("`{key}` is not modelled on a switch (spec 05 §2.2: 802.3x off, no router functions); node \"{}\" is one", n.name),
            ));
        }
        let s = n.switch.get_or_insert_with(SwitchSpec::default);
        let name = s.config.get_or_insert_with(|| "oq_cs".into()).clone();
        let Some(mut c) = SwitchConfig::preset(&name) else {
            let names: Vec<String> = sc::PRESETS.iter().map(|p| format!("\"{p}\"")).collect();
            return Err(ctx.err(at("config"), format!("expected one of {} , got \"{name}\"", names.join(", "))));
        };
        if let Some(a) = n.arbiter.take() {
            if s.sched.as_ref().is_some_and(|x| *x != a) {
                return Err(ctx.err(format!("node[{i}].arbiter"), "`arbiter` and `switch.sched` disagree; give one"));
            }
            s.sched = Some(a);
        }
        let max = *s.clock_ppm_max.get_or_insert(DEFAULT_CLOCK_PPM_MAX);
        if !(max.is_finite() && (0.0..1000.0).contains(&max)) {
            return Err(ctx.err(at("clock_ppm_max"), format!("expected an offset bound from 0 to 1000 ppm, got {max}")));
        }
        if s.clock_ppm.is_none() {
            // spec 05 §2.4: δ_sw ~ U[−ε, ε], drawn per repetition (per seed).
            let u = Stream::derive(seed, &format!("node[{i}].switch.clock")).next_f64();
            s.clock_ppm = Some(((2.0 * u - 1.0) * max * 1e3).round() / 1e3);
        }
        apply(&mut c, s, &at, ctx)?;
        if let Err((key, what)) = c.check() {
            return Err(ctx.err(at(key_name(key)), format!("expected {what}")));
        }
        let attached = links.iter().filter(|l| l.from == n.name || l.to == n.name).count();
        if attached > c.ports as usize {
            return Err(ctx.err(at("ports"), format!("switch \"{}\" has {attached} links but {} ports", n.name, c.ports)));
        }
        fill(s, &c);
    }
    Ok(())
}

/// The scenario key of a `SwitchConfig::check` field.
fn key_name(k: &str) -> &str {
    match k {
        "total" => "memory",
        "cell" => "cell",
        other => other,
    }
}
