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
        assert!(check_cc("vegas")
            .unwrap_err()
            .contains("not implemented yet"));
        assert!(check_cc("vegas")
            .unwrap_err()
            .contains("available: newreno, reno"));
        assert!(check_cc("cubix")
            .unwrap_err()
            .starts_with("unknown congestion control \"cubix\""));
        for name in available() {
            assert!(
                SPEC_CC_NAMES.contains(name),
                "{name} is not a spec 00 §2.2 name"
            );
        }
    }
}
