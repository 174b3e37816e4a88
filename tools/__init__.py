"""Developer tools of the benchmark (not imported by benchopt)."""
