//! Which congestion-control names a scenario may use (spec 00 §2.2, spec 06 §4.4).

use crate::host::cc::{AVAILABLE, SPEC_NAMES as SPEC_CC_NAMES};

/// The implemented congestion controls.
pub fn available() -> &'static [&'static str] {
    AVAILABLE
}

/// `Ok` if `name` can run, else what is wrong with it.
pub fn check_cc(name: &str) -> Result<(), String> {
    if AVAILABLE.contains(&name) {
        Ok(())
    } else if SPEC_CC_NAMES.contains(&name) {
        Err(format!(
            "congestion control \"{name}\" is not implemented yet; available: {}",
            AVAILABLE.join(", ")
        ))
    } else {
        Err(format!(
            "unknown congestion control \"{name}\"; expected one of {}",
            AVAILABLE.join(", ")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert!(check_cc("newreno").is_ok());
        // A spec name not built yet (none once every algorithm exists) is refused as such.
        for name in SPEC_CC_NAMES.iter().filter(|n| !AVAILABLE.contains(n)) {
            assert!(check_cc(name).unwrap_err().contains("not implemented yet"));
        }
        let e = check_cc("cubix").unwrap_err();
        assert!(e.starts_with("unknown congestion control \"cubix\""), "{e}");
        assert!(e.contains("newreno"), "{e}");
        for name in available() {
            assert!(SPEC_CC_NAMES.contains(name), "{name} is not a spec 00 §2.2 name");
        }
    }
}
