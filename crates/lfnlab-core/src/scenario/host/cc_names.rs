//! Which congestion-control names a scenario may use (spec 00 §2.2, spec 06 §4.4).

pub use crate::host::cc::available;
use crate::host::cc::SPEC_NAMES as SPEC_CC_NAMES;

/// `Ok` if `name` can run, else what is wrong with it.
pub fn check_cc(name: &str) -> Result<(), String> {
    let available = available();
    if available.contains(&name) {
        Ok(())
    } else if SPEC_CC_NAMES.contains(&name) {
        Err(format!(
            "congestion control \"{name}\" is not implemented yet; available: {}",
            available.join(", ")
        ))
    } else {
        Err(format!(
            "unknown congestion control \"{name}\"; expected one of {}",
            available.join(", ")
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
        for name in SPEC_CC_NAMES.iter().filter(|n| !available().contains(n)) {
            assert!(check_cc(name).unwrap_err().contains("not implemented yet"));
        }
        let e = check_cc("cubix").unwrap_err();
        assert!(e.starts_with("unknown congestion control \"cubix\""), "{e}");
        assert!(e.contains("newreno"), "{e}");
        for name in available() {
            assert!(SPEC_CC_NAMES.contains(&name), "{name} is not a spec 00 §2.2 name");
        }
    }
}
