//! docs/congestion-control.md documents every algorithm and every parameter
//! it declares (so the user-facing list cannot drift from the registry).

use lfnlab_core::host::cc::ALGORITHMS;

#[test]
fn every_declared_parameter_is_documented() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/congestion-control.md");
    let doc = std::fs::read_to_string(&path).expect("docs/congestion-control.md");
    for alg in ALGORITHMS {
        // The section whose heading names the algorithm, up to the next heading.
        let start = doc
            .lines()
            .position(|l| l.starts_with("### ") && l.contains(&format!("`{}`", alg.name)))
            .unwrap_or_else(|| panic!("no section for `{}` in {}", alg.name, path.display()));
        let section: Vec<&str> = doc.lines().skip(start + 1).take_while(|l| !l.starts_with('#')).collect();
        let section = section.join("\n");
        for p in alg.params {
            assert!(section.contains(&format!("`{}`", p.name)), "`{}` parameter `{}` is not documented", alg.name, p.name);
        }
    }
}
