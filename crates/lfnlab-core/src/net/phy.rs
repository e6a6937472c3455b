//! Physical layers and Ethernet framing of spec 04 §2.2: the MAC data rate of
//! each PHY key and the per-frame formulas (L2, wire, frame rate, goodput ceiling).

use std::str::FromStr;

/// Preamble + SFD (8 B) and the minimum inter-frame gap (12 B): a frame takes
/// L2 + 20 bytes on the wire (spec 04 §2.2 `W = L2 + 20`).
pub const PREAMBLE_AND_GAP_BYTES: u64 = 20;
/// MAC header (14 B) and FCS (4 B) around the IP packet.
pub const MAC_OVERHEAD_BYTES: u64 = 18;
/// An 802.1Q tag.
pub const VLAN_TAG_BYTES: u64 = 4;
/// The shortest Ethernet frame.
pub const MIN_FRAME_BYTES: u64 = 64;

/// A PHY key of spec 04 §2.2.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phy {
    /// 10GBASE-R (LAN-PHY): R_mac = 10 Gbit/s.
    Lan10g,
    /// 10GBASE-W (WAN-PHY): the MAC stretches its gap by one idle octet per
    /// 13 sent, so R_mac = 10 Gbit/s × 13/14 and it never overruns the SONET payload.
    Wan10g,
    /// 1000BASE-X/T: 1 Gbit/s.
    Gbe,
}

impl Phy {
    pub const NAMES: &'static [&'static str] = &["10g_lan", "10g_wan", "1g"];

    /// The MAC data rate R_mac in bit/s (WAN-PHY rounded to the nearest bit/s).
    pub fn r_mac_bps(self) -> u64 {
        match self {
            Phy::Lan10g => 10_000_000_000,
            Phy::Wan10g => (10_000_000_000u64 * 13 + 7) / 14,
            Phy::Gbe => 1_000_000_000,
        }
    }
}

impl FromStr for Phy {
    type Err = String;
    fn from_str(s: &str) -> Result<Phy, String> {
        match s {
            "10g_lan" => Ok(Phy::Lan10g),
            "10g_wan" => Ok(Phy::Wan10g),
            "1g" => Ok(Phy::Gbe),
            _ => Err(format!("one of {}", Phy::NAMES.iter().map(|n| format!("\"{n}\"")).collect::<Vec<_>>().join(", "))),
        }
    }
}

/// `L2 = max(L3 + 18 + 4·vlan, 64)`.
#[inline]
pub fn l2_bytes(l3_bytes: u64, vlan: bool) -> u64 {
    (l3_bytes + MAC_OVERHEAD_BYTES + if vlan { VLAN_TAG_BYTES } else { 0 }).max(MIN_FRAME_BYTES)
}

/// `W = L2 + 20`.
pub fn wire_bytes(l2_bytes: u64) -> u64 {
    l2_bytes + PREAMBLE_AND_GAP_BYTES
}

/// `R_mac / (8·W)` full-size frames per second at line rate.
pub fn max_frame_rate(r_mac_bps: u64, mtu_bytes: u64) -> f64 {
    r_mac_bps as f64 / (8.0 * wire_bytes(l2_bytes(mtu_bytes, false)) as f64)
}

/// `MSS_eff = MTU − h_ip − h_tcp` with h_tcp = 20 + 12 (timestamps on).
pub fn mss_eff(mtu_bytes: u64, ip_header_bytes: u64) -> u64 {
    mtu_bytes - ip_header_bytes - 32
}

/// `R_mac · MSS_eff / W(MTU)`: a link's goodput ceiling in bit/s.
pub fn goodput_ceiling_bps(r_mac_bps: u64, mtu_bytes: u64, ip_header_bytes: u64) -> f64 {
    r_mac_bps as f64 * mss_eff(mtu_bytes, ip_header_bytes) as f64 / wire_bytes(l2_bytes(mtu_bytes, false)) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// spec 04 §2.2 unit-test vectors (derived from the formulas).
    #[test]
    fn spec_vectors() {
        let lan = Phy::Lan10g.r_mac_bps();
        let wan = Phy::Wan10g.r_mac_bps();
        // (MTU, h_ip, R_mac, MSS_eff, W, frames/s, goodput ceiling Gbit/s)
        let rows = [
            (1500, 20, lan, 1448, 1538, 812_744, 9.4148),
            (1500, 40, lan, 1428, 1538, 812_744, 9.2848),
            (9000, 20, lan, 8948, 9038, 138_305, 9.9004),
            (9000, 40, lan, 8928, 9038, 138_305, 9.8783),
            (9198, 20, lan, 9146, 9236, 135_340, 9.9026),
            (9198, 40, lan, 9126, 9236, 135_340, 9.8809),
            (9198, 40, wan, 9126, 9236, 125_673, 9.1751),
        ];
        for (mtu, h, r, mss, w, fps, g) in rows {
            assert_eq!(mss_eff(mtu, h), mss);
            assert_eq!(wire_bytes(l2_bytes(mtu, false)), w);
            assert_eq!(max_frame_rate(r, mtu).round() as u64, fps, "MTU {mtu} at {r}");
            assert!((goodput_ceiling_bps(r, mtu, h) / 1e9 - g).abs() < 5e-5, "MTU {mtu} v{h}: {}", goodput_ceiling_bps(r, mtu, h));
        }
    }

    #[test]
    fn wan_phy_is_thirteen_fourteenths() {
        assert_eq!(Phy::Wan10g.r_mac_bps(), 9_285_714_286);
        assert_eq!(Phy::Gbe.r_mac_bps(), 1_000_000_000);
        assert!(Phy::Wan10g.r_mac_bps() < 9_294_200_000, "below the 64b/66b payload of the SONET frame");
    }

    #[test]
    fn framing_minimum_and_vlan() {
        assert_eq!(l2_bytes(20, false), 64);
        assert_eq!(l2_bytes(1500, true), 1522);
        assert_eq!("10g_wan".parse::<Phy>(), Ok(Phy::Wan10g));
        assert!("10g".parse::<Phy>().unwrap_err().contains("\"10g_lan\""));
    }
}
