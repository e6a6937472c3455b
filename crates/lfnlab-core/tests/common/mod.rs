//! Shared helpers for scenario-level tests: the spec 06 §7 validation path
//! (sender → access link at 10 × C → emulator → drop-tail bottleneck → receiver)
//! and readers for the result tables.
#![allow(dead_code)]

use lfnlab_core::results::table::{Column, Table};
use lfnlab_core::scenario;
use lfnlab_core::sim::{self, RunOutput};

/// Parameters of the validation path.
pub struct Path06 {
    pub rate: &'static str,
    pub access_rate: &'static str,
    pub one_way: &'static str,
    pub buffer: &'static str,
    pub duration: &'static str,
    pub bufs: &'static str,
    pub cc: &'static str,
    pub profile: &'static str,
    /// Extra lines for the `[flow.tcp]` table.
    pub tcp: &'static str,
    /// Extra `key = value` for the bottleneck link (e.g. loss).
    pub link_extra: &'static str,
    pub trace: &'static str,
    pub seed: u64,
    /// Extra `key = value` lines of the `[[flow]]` (cc_params, pacing, ...).
    pub flow_extra: &'static str,
    /// Extra `key = value` lines of the sending host.
    pub host_extra: &'static str,
    /// Extra tables appended at the end (e.g. `[[monitor]]`).
    pub extra: &'static str,
}

impl Default for Path06 {
    fn default() -> Self {
        Path06 {
            rate: "1Gbps",
            access_rate: "10Gbps",
            one_way: "25ms",
            buffer: "6250000B",
            duration: "10s",
            bufs: "64MiB",
            cc: "newreno",
            profile: "linux-2.6",
            tcp: "",
            link_extra: "",
            trace: "{ mode = \"bin\", bin = \"100ms\" }",
            seed: 1,
            flow_extra: "",
            host_extra: "",
            extra: "",
        }
    }
}

impl Path06 {
    pub fn toml(&self) -> String {
        format!(
            r#"
[sim]
name = "v"
duration = "{duration}"
seed = {seed}
trace = {trace}

[[node]]
name = "snd"
kind = "host"
{host_extra}

[[node]]
name = "wan"
kind = "emulator"

[[node]]
name = "rcv"
kind = "host"

[[link]]
from = "snd"
to = "wan"
rate = "{access}"
delay = "0ms"

[[link]]
from = "wan"
to = "rcv"
rate = "{rate}"
delay = "{one_way}"
queue = {{ kind = "droptail", limit = "{buffer}" }}
{link_extra}

[[flow]]
name = "f"
kind = "tcp_bulk"
from = "snd"
to = "rcv"
cc = "{cc}"
profile = "{profile}"
sndbuf = "{bufs}"
rcvbuf = "{bufs}"
{flow_extra}

[flow.tcp]
{tcp}

{extra}
"#,
            duration = self.duration,
            seed = self.seed,
            trace = self.trace,
            access = self.access_rate,
            rate = self.rate,
            one_way = self.one_way,
            buffer = self.buffer,
            link_extra = self.link_extra,
            cc = self.cc,
            profile = self.profile,
            bufs = self.bufs,
            tcp = self.tcp,
            flow_extra = self.flow_extra,
            host_extra = self.host_extra,
            extra = self.extra,
        )
    }

    pub fn run(&self) -> RunOutput {
        run_toml(&self.toml())
    }
}

/// Load and run a scenario text. Every run checks conservation at its end
/// (spec 06 §7 V5): an error here fails the test, naming the scenario.
pub fn run_toml(text: &str) -> RunOutput {
    run_toml_with(text, sim::build::BuildOptions::default())
}

/// [`run_toml`] with explicit build options.
pub fn run_toml_with(text: &str, opts: sim::build::BuildOptions) -> RunOutput {
    let sc = scenario::load_str(text, "<test>", &[]).unwrap_or_else(|e| panic!("{e}\n{text}"));
    sim::run_with(&sc, opts).unwrap_or_else(|e| panic!("{e}"))
}

/// The TCP of chapter 02's flows (spec 02 §2.6, §4.1): the linux-2.6 profile,
/// Reno, 8 MiB buffers, `linux_like` ACKs, the full buffer as window.
pub const CH02_TCP: &str = "profile = \"linux-2.6\"\ncc = \"reno\"\nsndbuf = \"8MiB\"\nrcvbuf = \"8MiB\"\ntcp = { ack_policy = \"linux_like\", rwnd_policy = \"full_buffer\" }\n";

/// Testbed T0 of spec 02 §4.1 without flows: server S with the Quick-Start
/// function on its egress (C = 10 Mbit/s), client C, one 10 Mbit/s link with
/// `one_way` delay; traces off.
pub fn t0_head(duration: &str, seed: u64, one_way: &str) -> String {
    format!(
        "[sim]\nduration = \"{duration}\"\nseed = {seed}\ntrace = {{ mode = \"off\" }}\n[[node]]\nname = \"S\"\nkind = \"host\"\nquickstart = {{ capacity = \"10Mbps\" }}\n[[node]]\nname = \"C\"\nkind = \"host\"\n[[link]]\nfrom = \"S\"\nto = \"C\"\nrate = \"10Mbps\"\ndelay = \"{one_way}\"\n"
    )
}

pub fn f64s<'a>(t: &'a Table, name: &str) -> &'a [f64] {
    match t.column(name) {
        Some(Column::F64(v)) => v,
        _ => panic!("no f64 column {name}"),
    }
}

pub fn u64s<'a>(t: &'a Table, name: &str) -> &'a [u64] {
    match t.column(name) {
        Some(Column::U64(v)) => v,
        _ => panic!("no u64 column {name}"),
    }
}

/// Value of a cumulative u64 trace column at the last row with t ≤ at.
pub fn at(t: &Table, name: &str, time_s: f64) -> u64 {
    let ts = f64s(t, "t");
    let vs = u64s(t, name);
    let i = ts.partition_point(|x| *x <= time_s + 1e-9);
    assert!(i > 0, "no trace row at or before {time_s}");
    vs[i - 1]
}

/// Goodput in bit/s over [a, b] from the receiver's cumulative bytes_read.
pub fn goodput_bps(t: &Table, a: f64, b: f64) -> f64 {
    (at(t, "bytes_read", b) - at(t, "bytes_read", a)) as f64 * 8.0 / (b - a)
}

/// The wire-efficiency bound (spec 06 §1.2): C · MSS / W = C · 1448/1538.
pub fn wire_bound_bps(c_bps: f64) -> f64 {
    c_bps * 1448.0 / 1538.0
}

pub fn strs<'a>(t: &'a Table, name: &str) -> &'a [String] {
    match t.column(name) {
        Some(Column::Str(v)) => v,
        _ => panic!("no string column {name}"),
    }
}
