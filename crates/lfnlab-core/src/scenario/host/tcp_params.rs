//! TCP parameter tables (spec 06 §2–3): checking one table, merging
//! profile ← host ← flow, and building the typed `TcpConfig`.

use std::str::FromStr;

use crate::scenario::model::{FlowKind, Scenario, TcpParams};
use crate::error::InputError;
use crate::host::tcp::config::{
    AckPolicy, BufferSemantics, RateHalvingFloor, RcvAutotune, SndAutotune, CwndCredit, Delack, LossDetection, LostRetrans, FqMode, Pacing, PacingKind, IdleRestart, InitialWindow, IsLost, RecoveryCwnd,
    RtoFormula, RwndPolicy, SendStallPolicy, SlowStartWhile, SsthreshBasis, SynLossIw, TcpConfig,
    TruesizeModel, WindowRounding,
};

/// Valid range of `adv_win_scale` (Linux sysctl bounds, spec 06 §2.3).
const ADV_WIN_SCALE_RANGE: std::ops::RangeInclusive<i32> = -31..=14;

/// Checks every value present in `p`; `at` is the key path of the table
/// (`flow[0].tcp`), used for errors.
pub fn check_params(p: &TcpParams, file: &str, at: &str) -> Result<(), InputError> {
    let fail = |key: &str, message: String| InputError::new(file, format!("{at}.{key}"), message);
    macro_rules! names {
        ($($field:ident: $ty:ty),+ $(,)?) => {$(
            if let Some(v) = &p.$field {
                if let Err(expected) = v.parse::<$ty>() {
                    return Err(fail(stringify!($field), format!("expected {expected}, got \"{v}\"")));
                }
            }
        )+};
    }
    names!(
        iw: InitialWindow,
        syn_loss_iw: SynLossIw,
        cwnd_credit: CwndCredit,
        slow_start_while: SlowStartWhile,
        recovery_cwnd: RecoveryCwnd,
        is_lost: IsLost,
        loss_detection: LossDetection,
        lost_retrans: LostRetrans,
        rto_formula: RtoFormula,
        ack_policy: AckPolicy,
        delack: Delack,
        send_stall_policy: SendStallPolicy,
        idle_restart: IdleRestart,
        ssthresh_basis: SsthreshBasis,
        truesize_model: TruesizeModel,
        rwnd_policy: RwndPolicy,
        buffer_semantics: BufferSemantics,
        rcv_autotune: RcvAutotune,
        snd_autotune: SndAutotune,
        rate_halving_floor: RateHalvingFloor,
        window_rounding: WindowRounding,
    );
    for (key, value) in [("rmem_default", p.rmem_default), ("rmem_max", p.rmem_max), ("wmem_default", p.wmem_default), ("wmem_max", p.wmem_max)] {
        if value.is_some_and(|b| b.bytes() == 0) {
            return Err(fail(key, "a socket buffer must be greater than zero".into()));
        }
    }
    for (key, value) in [
        ("rto_init", p.rto_init),
        ("rto_min", p.rto_min),
        ("rto_max", p.rto_max),
        ("delack_timeout", p.delack_timeout),
    ] {
        if value.is_some_and(|t| t.ps() == 0) {
            return Err(fail(key, "must be greater than zero".into()));
        }
    }
    if let Some(s) = p.adv_win_scale.filter(|s| !ADV_WIN_SCALE_RANGE.contains(s)) {
        return Err(fail(
            "adv_win_scale",
            format!("expected an integer from -31 to 14, got {s}"),
        ));
    }
    match (p.rto_min, p.rto_max) {
        (Some(min), Some(max)) if min > max => Err(fail(
            "rto_min",
            format!("rto_min ({min}) must not exceed rto_max ({max})"),
        )),
        _ => Ok(()),
    }
}

/// Field by field: `over`'s value where it has one, else `base`'s.
pub fn merge(base: &TcpParams, over: &TcpParams) -> TcpParams {
    macro_rules! merged {
        ($($f:ident),+ $(,)?) => {
            TcpParams { $($f: over.$f.clone().or_else(|| base.$f.clone())),+ }
        };
    }
    merged!(
        iw,
        syn_loss_iw,
        abc_l,
        cwnd_credit,
        slow_start_while,
        recovery_cwnd,
        is_lost,
        loss_detection,
        lost_retrans,
        tlp,
        rto_init,
        rto_min,
        rto_max,
        rto_formula,
        ack_policy,
        delack,
        delack_timeout,
        send_stall_policy,
        tsq,
        burst_moderation,
        idle_restart,
        sack,
        timestamps,
        window_scale,
        ssthresh_basis,
        cwnd_limited_growth,
        quickack_on_window_growth,
        adv_win_scale,
        truesize_model,
        rwnd_policy,
        buffer_semantics,
        rate_halving_floor,
        window_rounding,
        rcv_autotune,
        snd_autotune,
        rmem_default,
        rmem_max,
        wmem_default,
        wmem_max,
        rcvbuf_lock,
        sndbuf_lock,
    )
}

/// The typed configuration of a resolved scenario's TCP flow.
///
/// `abc_l = 0` becomes `u32::MAX` (L = ∞, spec 06 §2.1); `buffer_semantics =
/// "setsockopt"` doubles `sndbuf` and `rcvbuf` as Linux does (spec 06 §2.3).
///
/// # Panics
/// If the scenario was not resolved (a TCP field is unset or invalid), or
/// `flow_index` is out of range or names a UDP flow.
pub fn tcp_config(s: &Scenario, flow_index: usize) -> TcpConfig {
    const UNRESOLVED: &str = "tcp_config needs a scenario resolved by scenario::load_*";
    let flow = &s.flow[flow_index];
    assert_ne!(flow.kind, FlowKind::UdpCbr, "flow[{flow_index}] is not a TCP flow");
    let p = flow.tcp.as_ref().expect(UNRESOLVED);
    fn name<T: FromStr>(v: &Option<String>) -> T {
        v.as_deref().and_then(|s| s.parse().ok()).expect(UNRESOLVED)
    }
    let span = |t: Option<crate::scenario::units::TimeSpan>| t.expect(UNRESOLVED).span();
    let flag = |b: Option<bool>| b.expect(UNRESOLVED);
    let semantics: BufferSemantics = name(&p.buffer_semantics);
    let factor = if semantics == BufferSemantics::Setsockopt {
        2
    } else {
        1
    };
    // A locked buffer is what the flow gave (doubled under `setsockopt`); an
    // unlocked one is the kernel's tcp_[rw]mem[2], taken as it is.
    let buffer = |b: Option<crate::scenario::units::ByteSize>, locked: bool| {
        b.expect(UNRESOLVED).bytes().saturating_mul(if locked { factor } else { 1 })
    };
    let bytes = |b: Option<crate::scenario::units::ByteSize>| b.expect(UNRESOLVED).bytes();
    let (rcvbuf_lock, sndbuf_lock) = (flag(p.rcvbuf_lock), flag(p.sndbuf_lock));
    let pacing = flow.pacing.as_ref().expect(UNRESOLVED);
    let kind: PacingKind = pacing.kind.parse().expect(UNRESOLVED);
    let pacing_mode = match kind {
        // Gap frames and the TCP-aware NIC pace below TCP (spec 01, spec 03
        // §2.7); CPS spaces only the first rounds (`cps_tick`): the socket
        // itself sends unpaced.
        PacingKind::Off | PacingKind::GapPackets | PacingKind::TcpNic | PacingKind::Cps => Pacing::Off,
        PacingKind::Internal => Pacing::Internal,
        PacingKind::Fq => match name::<FqMode>(&pacing.mode) {
            FqMode::Edt => Pacing::Edt,
            FqMode::Fq => Pacing::QdiscRate,
        },
    };
    TcpConfig {
        pacing: pacing_mode,
        max_pacing_rate_bytes_per_s: pacing.max_rate.map_or(f64::INFINITY, |r| r.bps as f64 / 8.0),
        cps_tick: (kind == PacingKind::Cps).then(|| pacing.cps_t.expect(UNRESOLVED).span()),
        iw: name(&p.iw),
        abc_l: match p.abc_l.expect(UNRESOLVED) {
            0 => u32::MAX,
            l => l,
        },
        syn_loss_iw: name(&p.syn_loss_iw),
        cwnd_credit: name(&p.cwnd_credit),
        slow_start_while: name(&p.slow_start_while),
        recovery_cwnd: name(&p.recovery_cwnd),
        rate_halving_floor: name(&p.rate_halving_floor),
        window_rounding: name(&p.window_rounding),
        is_lost: name(&p.is_lost),
        loss_detection: name(&p.loss_detection),
        lost_retrans: name(&p.lost_retrans),
        tlp: flag(p.tlp),
        rto_init: span(p.rto_init),
        rto_min: span(p.rto_min),
        rto_max: span(p.rto_max),
        rto_formula: name(&p.rto_formula),
        ack_policy: name(&p.ack_policy),
        delack: name(&p.delack),
        delack_timeout: span(p.delack_timeout),
        send_stall_policy: name(&p.send_stall_policy),
        tsq: flag(p.tsq),
        burst_moderation: flag(p.burst_moderation),
        idle_restart: name(&p.idle_restart),
        sack: flag(p.sack),
        timestamps: flag(p.timestamps),
        window_scale: flag(p.window_scale),
        ssthresh_basis: name(&p.ssthresh_basis),
        cwnd_limited_growth: flag(p.cwnd_limited_growth),
        quickack_on_window_growth: flag(p.quickack_on_window_growth),
        adv_win_scale: p.adv_win_scale.expect(UNRESOLVED),
        truesize_model: name(&p.truesize_model),
        rwnd_policy: name(&p.rwnd_policy),
        sndbuf_bytes: buffer(flow.sndbuf, sndbuf_lock),
        rcvbuf_bytes: buffer(flow.rcvbuf, rcvbuf_lock),
        rcvbuf_lock,
        sndbuf_lock,
        rcv_autotune: name(&p.rcv_autotune),
        snd_autotune: name(&p.snd_autotune),
        rmem_default_bytes: bytes(p.rmem_default),
        wmem_default_bytes: bytes(p.wmem_default),
    }
}

#[cfg(test)]
mod tests {
    use crate::scenario::host::profiles::{profile_params, PROFILES};
    use super::*;

    #[test]
    fn profiles_pass_their_own_checks() {
        for name in PROFILES {
            check_params(&profile_params(name).unwrap(), "f", "p").unwrap();
        }
    }

    #[test]
    fn merge_prefers_the_override() {
        let base = profile_params("linux-2.6").unwrap();
        let over = TcpParams {
            ack_policy: Some("per_segment".into()),
            abc_l: Some(2),
            ..TcpParams::default()
        };
        let m = merge(&base, &over);
        assert_eq!(m.ack_policy.as_deref(), Some("per_segment"));
        assert_eq!(m.abc_l, Some(2));
        assert_eq!(m.recovery_cwnd.as_deref(), Some("rate_halving"));
    }

    #[test]
    fn checks_name_the_key() {
        let bad = TcpParams {
            recovery_cwnd: Some("fast".into()),
            ..TcpParams::default()
        };
        let e = check_params(&bad, "f.toml", "flow[0].tcp").unwrap_err();
        assert_eq!(e.key_path, "flow[0].tcp.recovery_cwnd");
        assert!(
            e.message.contains("\"prr\"") && e.message.contains("got \"fast\""),
            "{}",
            e.message
        );
        let bad = TcpParams {
            iw: Some("0".into()),
            ..TcpParams::default()
        };
        assert_eq!(check_params(&bad, "f", "t").unwrap_err().key_path, "t.iw");
        let bad = TcpParams {
            adv_win_scale: Some(15),
            ..TcpParams::default()
        };
        assert!(check_params(&bad, "f", "t")
            .unwrap_err()
            .message
            .contains("-31 to 14"));
    }
}
