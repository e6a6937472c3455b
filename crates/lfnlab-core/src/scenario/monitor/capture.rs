//! `[[capture]]` (issue 10, docs/pcap.md): a standard pcap file of the frames
//! on one link, with real Ethernet/IP/TCP headers (`monitor::pcap`).
//!
//! ```toml
//! [[capture]]
//! link = "snd->wan"        # the link; its `from` end is where the tap sits
//! name = "access"          # file `access.pcap` in the result directory
//! direction = "both"       # both directions (default) or "forward" (snd->wan only)
//! flows = ["bulk"]         # only these flows' packets (MAC control frames always)
//! from = "0s"              # window start (default 0)
//! until = "10s"            # window end, exclusive (default: the end of the run)
//! snaplen = "256B"         # bytes kept per frame (default 256 B: every header)
//! max_frames = 1000000     # frames kept at most; later ones are counted as missed
//! ```

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::scenario::net::links::Graph;
use crate::scenario::model::FlowSpec;
use crate::scenario::resolve::Ctx;
use crate::scenario::units::{ByteSize, TimeSpan};
use crate::engine::time::Span;
use crate::error::InputError;

/// CHOICE: bytes kept per frame by default. Every header the simulator writes
/// fits (Ethernet 14 + IPv6 40 + hop-by-hop 16 + TCP 60 = 130 bytes); the
/// payload is not modelled (zeros), so keeping it only costs memory.
pub const DEFAULT_SNAPLEN_BYTES: u64 = 256;
/// pcap's largest snap length (libpcap's MAXIMUM_SNAPLEN).
pub const MAX_SNAPLEN_BYTES: u64 = 262_144;
/// CHOICE: frames kept by default (about 250 MB at the default snap length);
/// a capture keeps its frames in memory until the run ends.
pub const DEFAULT_MAX_FRAMES: u64 = 1_000_000;

/// `[[capture]]`: a pcap file of the frames on one link (docs/pcap.md).
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CaptureSpec {
    /// `"a->b"`: the link between a and b; the tap sits at a's port.
    pub link: String,
    /// File stem of the capture: `<name>.pcap` (default `capture-<index>`).
    pub name: Option<String>,
    /// `both` (default: a->b and b->a) or `forward` (a->b only).
    pub direction: Option<String>,
    /// Only packets of these flows (default: every flow). PAUSE and gap
    /// frames belong to no flow and are always kept.
    pub flows: Option<Vec<String>>,
    /// Frames that start before this time are not kept (default 0).
    pub from: Option<TimeSpan>,
    /// Frames that start at or after this time are not kept (default: the run's end).
    pub until: Option<TimeSpan>,
    /// Bytes kept of each frame (default 256 B, at most 256 KiB).
    pub snaplen: Option<ByteSize>,
    /// Frames kept at most (default 1 000 000); the summary counts the rest as missed.
    pub max_frames: Option<u64>,
}

/// Checks every capture and fills in its defaults.
pub fn resolve_captures(caps: &mut [CaptureSpec], flows: &[FlowSpec], graph: &Graph, duration: TimeSpan, ctx: &Ctx) -> Result<(), InputError> {
    let mut taken: Vec<(usize, usize, usize)> = Vec::new();
    let mut names: Vec<String> = Vec::new();
    for (i, c) in caps.iter_mut().enumerate() {
        let at = |key: &str| format!("capture[{i}].{key}");
        let Some((a, b)) = c.link.split_once("->") else {
            return Err(ctx.err(at("link"), format!("expected \"a->b\", a link between nodes a and b (the tap sits at a), got \"{}\"", c.link)));
        };
        let node = |name: &str| graph.find(name).ok_or_else(|| ctx.err(at("link"), graph.unknown(name)));
        let (na, nb) = (node(a)?, node(b)?);
        if graph.link_between(na, nb).is_none() {
            return Err(ctx.err(at("link"), format!("no link joins \"{a}\" and \"{b}\"")));
        }
        let name = c.name.get_or_insert_with(|| format!("capture-{i}")).clone();
        let portable = !name.is_empty() && name.chars().all(|ch| ch.is_ascii_alphanumeric() || "._-".contains(ch)) && !name.starts_with('.');
        if !portable {
            return Err(ctx.err(at("name"), format!("expected a file stem of letters, digits, '.', '_' or '-' (not starting with '.'), got \"{name}\"")));
        }
        if let Some(j) = names.iter().position(|n| *n == name) {
            return Err(ctx.err(at("name"), format!("capture[{j}] already writes \"{name}.pcap\"")));
        }
        names.push(name);
        let direction = c.direction.get_or_insert_with(|| "both".into());
        let both = match direction.as_str() {
            "both" => true,
            "forward" => false,
            other => return Err(ctx.err(at("direction"), format!("expected \"both\" (a->b and b->a) or \"forward\" (a->b only), got \"{other}\""))),
        };
        let mut dirs = vec![(na, nb)];
        if both {
            dirs.push((nb, na));
        }
        for (x, y) in dirs {
            if let Some(&(_, _, j)) = taken.iter().find(|t| (t.0, t.1) == (x, y)) {
                return Err(ctx.err(at("link"), format!("capture[{j}] already captures this link direction; one capture per direction")));
            }
            taken.push((x, y, i));
        }
        if let Some(list) = &c.flows {
            if list.is_empty() {
                return Err(ctx.err(at("flows"), "expected at least one flow name (leave the key out to keep every flow)"));
            }
            for (k, f) in list.iter().enumerate() {
                if !flows.iter().any(|fl| fl.name == *f) {
                    let known: Vec<&str> = flows.iter().map(|fl| fl.name.as_str()).collect();
                    return Err(ctx.err(format!("capture[{i}].flows[{k}]"), format!("no flow named \"{f}\"; flows: {}", known.join(", "))));
                }
            }
        }
        let from = *c.from.get_or_insert(TimeSpan::from_span(Span::ZERO));
        let until = *c.until.get_or_insert(duration);
        if until <= from {
            return Err(ctx.err(at("until"), format!("expected a window end after `from` ({from}), got {until}")));
        }
        let snap = c.snaplen.get_or_insert(ByteSize { bytes: DEFAULT_SNAPLEN_BYTES }).bytes;
        if !(64..=MAX_SNAPLEN_BYTES).contains(&snap) {
            return Err(ctx.err(at("snaplen"), format!("expected 64 B to 256 KiB (the Ethernet minimum to pcap's maximum), got {snap} B")));
        }
        let max = *c.max_frames.get_or_insert(DEFAULT_MAX_FRAMES);
        if max == 0 {
            return Err(ctx.err(at("max_frames"), "expected at least 1 frame"));
        }
    }
    Ok(())
}
