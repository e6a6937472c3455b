//! Resident memory of this process, from Linux's `/proc/self` (issue 9: peak RSS
//! of a run and bytes per in-flight packet). Elsewhere every reading is `None`
//! and the bench reports the memory figures as null.

/// Resident set size now and its high-water mark, bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rss {
    pub now_bytes: u64,
    pub peak_bytes: u64,
}

/// The `VmRSS` and `VmHWM` lines of a `/proc/PID/status` text, in bytes.
pub fn parse_status(text: &str) -> Option<Rss> {
    let kib = |key: &str| -> Option<u64> {
        let line = text.lines().find(|l| l.starts_with(key))?;
        let mut words = line[key.len()..].split_whitespace();
        let n: u64 = words.next()?.parse().ok()?;
        (words.next()? == "kB").then_some(n * 1024)
    };
    Some(Rss { now_bytes: kib("VmRSS:")?, peak_bytes: kib("VmHWM:")? })
}

/// This process's resident memory now.
pub fn read() -> Option<Rss> {
    parse_status(&std::fs::read_to_string("/proc/self/status").ok()?)
}

/// Start a new high-water mark at the current RSS (`clear_refs` value 5, Linux
/// 4.0+), so that the next [`read`] gives the peak of what runs in between.
/// False if the kernel does not allow it; the peak then covers the whole process.
pub fn reset_peak() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// Tests that read or reset this process's RSS hold this lock: the high-water
/// mark is one per process, and the test harness runs tests on threads.
#[cfg(test)]
pub static RSS_TESTS: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_two_lines_in_bytes() {
        let text = "Name:\tlfnlab\nVmHWM:\t  204800 kB\nVmRSS:\t   10240 kB\nThreads:\t1\n";
        assert_eq!(parse_status(text), Some(Rss { now_bytes: 10240 * 1024, peak_bytes: 204800 * 1024 }));
        assert_eq!(parse_status("VmRSS:\t1 kB\n"), None);
        assert_eq!(parse_status("VmRSS:\tx kB\nVmHWM:\t1 kB\n"), None);
    }

    #[test]
    fn the_peak_follows_an_allocation_and_resets() {
        let _one = RSS_TESTS.lock().unwrap_or_else(|e| e.into_inner());
        let Some(before) = read() else { return };
        if !reset_peak() {
            return;
        }
        // Touch 64 MiB so that it is resident.
        let block = vec![1u8; 64 << 20];
        let during = read().unwrap();
        assert!(during.peak_bytes >= before.now_bytes + (60 << 20), "{before:?} {during:?}");
        drop(std::hint::black_box(block));
        assert!(reset_peak());
        let after = read().unwrap();
        assert!(after.peak_bytes < during.peak_bytes, "{during:?} {after:?}");
    }
}
