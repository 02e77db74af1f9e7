//! What the server's benches share: this process's memory as `/proc/self/status` reports it.

/// A `/proc/self/status` field in KiB (`VmRSS`, `VmHWM`), 0 where it cannot be read.
fn status_kib(field: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.strip_prefix(field).is_some_and(|r| r.starts_with(':')))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

/// Peak resident memory of this process, in KiB.
#[allow(dead_code)]
pub(crate) fn peak_rss_kib() -> u64 {
    status_kib("VmHWM")
}

/// Resident memory of this process now, in KiB.
#[allow(dead_code)]
pub(crate) fn rss_kib() -> u64 {
    status_kib("VmRSS")
}
