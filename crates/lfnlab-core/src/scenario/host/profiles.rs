//! The TCP profiles of spec 06 §2.1: every `TcpParams` field filled in.

use crate::scenario::model::TcpParams;
use crate::scenario::units::TimeSpan;
use crate::engine::time::Span;

/// Profile names, oldest first (spec 06 §2.1).
pub const PROFILES: &[&str] = &["linux-2.4", "linux-2.6", "linux-modern"];

/// The profile of a scenario that names none (spec 06 §2.1).
pub const DEFAULT_PROFILE: &str = "linux-modern";

/// The profile's default congestion control (spec 06 §2.1, "Default CC" row).
pub fn default_cc(profile: &str) -> Option<&'static str> {
    match profile {
        "linux-2.4" => Some("newreno"),
        "linux-2.6" => Some("bic"),
        "linux-modern" => Some("cubic"),
        _ => None,
    }
}

/// Every TCP parameter of a profile, or `None` for an unknown name.
pub fn profile_params(profile: &str) -> Option<TcpParams> {
    let ms = |n| Some(TimeSpan::from_span(Span::from_ms(n)));
    let s = |n| Some(TimeSpan::from_span(Span::from_secs(n)));
    let text = |t: &str| Some(t.to_string());
    // Rows of the spec 06 §2.1 table that differ between profiles.
    let (
        iw,
        abc_l,
        slow_start_while,
        recovery_cwnd,
        is_lost,
        rto_init,
        ack_policy,
        delack,
        stall,
        tsq,
        burst,
    ) = match profile {
        "linux-2.4" => (
            "2", 1, "le", "rfc", "rfc6675", 3, "delayed", "fixed", "cwr", false, false,
        ),
        "linux-2.6" => (
            "rfc3390",
            1,
            "le",
            "rate_halving",
            "fack",
            3,
            "linux_quickack",
            "adaptive",
            "cwr_gradual",
            false,
            true,
        ),
        // abc_l 0 stands for L = ∞.
        "linux-modern" => (
            "10",
            0,
            "lt",
            "prr",
            "rfc6675",
            1,
            "linux_quickack",
            "adaptive",
            "block",
            true,
            false,
        ),
        _ => return None,
    };
    // What an ACK credits to slow start and congestion avoidance (spec 06 §2.1 `acked`).
    // Linux 2.4.20 net/ipv4/tcp_input.c tcp_cong_avoid: snd_cwnd++ per ACK in slow start;
    // 2.6.20 tcp_ack/tcp_slow_start: per ACK, or with ABC by bytes_acked, the snd_una
    // advance (one MSS at most in CA_Loss): both the cumulative advance, bounded by L = 1.
    // Linux 6.x tcp_ack: delivered = tcp_newly_delivered(), passed to tcp_cong_control and
    // tcp_cong_avoid(sk, ack, acked_sacked): segments newly delivered by this ACK,
    // cumulatively or by SACK, so a cumulative ACK over data SACKed earlier credits only
    // what it newly delivered (after an RTO: the retransmission, not the SACKed window).
    let cwnd_credit = if profile == "linux-modern" { "delivered" } else { "acked" };
    // The window after a retransmitted SYN or SYN-ACK (spec 06 §2.2 step 4). Linux 6.x
    // net/ipv4/tcp_input.c tcp_init_transfer(): `if (tp->total_retrans > 1 &&
    // tp->undo_marker) tcp_snd_cwnd_set(tp, 1); else ... tcp_init_cwnd(...)`, "we only
    // reset cwnd when more than 1 SYN/SYN-ACK retransmission has occurred"; undo_marker,
    // set by the handshake timeout, is cleared by tcp_try_undo_spurious_syn() when the
    // answer echoes the first SYN's (SYN-ACK's) timestamp. Linux 2.6.20 has no such rule:
    // tcp_init_metrics() sets tcp_init_cwnd() only from cached route metrics, the SYN
    // timeout's tcp_enter_loss() sets cwnd 1 and the SYN-ACK undoes it
    // (tcp_fastretrans_alert → tcp_try_undo_recovery, retrans_stamp cleared on
    // FLAG_SYN_ACKED), with a CC-dependent result; those profiles keep the spec's rule
    // (docs/choices.md "Window after a lost SYN").
    let syn_loss_iw = if profile == "linux-modern" { "linux" } else { "rfc5681" };
    Some(TcpParams {
        iw: text(iw),
        syn_loss_iw: text(syn_loss_iw),
        abc_l: Some(abc_l),
        cwnd_credit: text(cwnd_credit),
        slow_start_while: text(slow_start_while),
        recovery_cwnd: text(recovery_cwnd),
        is_lost: text(is_lost),
        // Initial RTO: CHOICE (unverified constant) of spec 06 §2.1.
        rto_init: s(rto_init),
        rto_min: ms(200),
        rto_max: s(120),
        ack_policy: text(ack_policy),
        delack: text(delack),
        send_stall_policy: text(stall),
        tsq: Some(tsq),
        burst_moderation: Some(burst),
        // Common to all three profiles (spec 06 §2.1 after the table, §2.3, §3).
        rto_formula: text("linux"),
        delack_timeout: ms(40),
        idle_restart: text("linux"),
        sack: Some(true),
        timestamps: Some(true),
        window_scale: Some(true),
        ssthresh_basis: text("cwnd"),
        cwnd_limited_growth: Some(true),
        adv_win_scale: Some(1),
        truesize_model: text("payload"),
        rwnd_policy: text("linux_fraction"),
        buffer_semantics: text("kernel"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_profile_is_complete() {
        for name in PROFILES {
            let p = profile_params(name).unwrap();
            assert!(default_cc(name).is_some());
            // Every field Some: serializing shows all 27 keys.
            let text = toml::to_string(&p).unwrap();
            assert_eq!(text.lines().count(), 27, "{name}:\n{text}");
        }
        assert!(profile_params("linux-3.0").is_none());
    }

    #[test]
    fn table_rows() {
        let modern = profile_params("linux-modern").unwrap();
        assert_eq!(modern.iw.as_deref(), Some("10"));
        assert_eq!(modern.abc_l, Some(0));
        assert_eq!(modern.cwnd_credit.as_deref(), Some("delivered"));
        assert_eq!(modern.syn_loss_iw.as_deref(), Some("linux"));
        assert_eq!(
            modern.rto_init,
            Some(TimeSpan::from_span(Span::from_secs(1)))
        );
        let old = profile_params("linux-2.4").unwrap();
        assert_eq!(old.ack_policy.as_deref(), Some("delayed"));
        assert_eq!(old.delack.as_deref(), Some("fixed"));
        assert_eq!(old.cwnd_credit.as_deref(), Some("acked"));
        assert_eq!(old.syn_loss_iw.as_deref(), Some("rfc5681"));
        assert_eq!(profile_params("linux-2.6").unwrap().syn_loss_iw.as_deref(), Some("rfc5681"));
    }
}
