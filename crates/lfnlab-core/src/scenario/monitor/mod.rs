//! Scenario keys of what a run records (`crate::monitor`): the binned
//! series and their bound (`bins`), pcap captures (`capture`).
pub mod bins;
pub mod capture;
