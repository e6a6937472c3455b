"""Chapter 05 reproductions: Ethernet switch contention (spec 05)."""
