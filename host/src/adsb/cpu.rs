//! CPU time and memory of this process and its threads, from Linux
//! `/proc` (other systems report `None`).
//!
//! - Thread CPU: the first field of `/proc/thread-self/schedstat`, time
//!   spent on the CPU in ns (no clock-tick conversion needed).
//! - Process CPU: `utime + stime` of `/proc/self/stat` (fields 14 and 15),
//!   in clock ticks of `USER_HZ`, which Linux fixes at 100 on every
//!   architecture it exposes to user space.
//! - Memory: `VmRSS` and `VmHWM` (peak resident set) of
//!   `/proc/self/status`, KiB.

use std::fs;

/// Linux's `USER_HZ`: clock ticks per second in `/proc/*/stat`.
const USER_HZ: u64 = 100;

/// CPU time of the calling thread, ms.
pub fn thread_cpu_ms() -> Option<u64> {
    let s = fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    parse_schedstat_ns(&s).map(|ns| ns / 1_000_000)
}

/// CPU time (user + system) of the whole process, ms.
pub fn process_cpu_ms() -> Option<u64> {
    let s = fs::read_to_string("/proc/self/stat").ok()?;
    parse_stat_ticks(&s).map(|t| t * 1000 / USER_HZ)
}

/// Resident set size now and at its peak, KiB.
pub fn resident_kib() -> Option<(u64, u64)> {
    let s = fs::read_to_string("/proc/self/status").ok()?;
    Some((status_kib(&s, "VmRSS:")?, status_kib(&s, "VmHWM:")?))
}

/// The first field of a `schedstat` line, ns.
fn parse_schedstat_ns(s: &str) -> Option<u64> {
    s.split_whitespace().next()?.parse().ok()
}

/// `utime + stime` from a `/proc/PID/stat` line. The command name (field
/// 2) is in parentheses and may contain spaces, so fields are counted
/// after its closing parenthesis: `utime` and `stime` are then the 12th
/// and 13th.
fn parse_stat_ticks(s: &str) -> Option<u64> {
    let rest = &s[s.rfind(')')? + 1..];
    let mut f = rest.split_whitespace().skip(11);
    let utime: u64 = f.next()?.parse().ok()?;
    let stime: u64 = f.next()?.parse().ok()?;
    Some(utime + stime)
}

/// A `Key:   1234 kB` line's number.
fn status_kib(s: &str, key: &str) -> Option<u64> {
    let line = s.lines().find(|l| l.starts_with(key))?;
    line[key.len()..].split_whitespace().next()?.parse().ok()
}

#[cfg(test)]
mod test {
    use super::*;

    #[test]
    fn parses_proc_lines() {
        assert_eq!(parse_schedstat_ns("123456789 42 7\n"), Some(123_456_789));
        // A command name with spaces and parentheses.
        let stat = "4242 (my (odd) name) S 1 4242 4242 0 -1 4194304 100 0 0 0 250 75 0 0 20 0 3 0";
        assert_eq!(parse_stat_ticks(stat), Some(325));
        let status = "Name:\tx\nVmHWM:\t   20480 kB\nVmRSS:\t   10240 kB\n";
        assert_eq!(status_kib(status, "VmRSS:"), Some(10_240));
        assert_eq!(status_kib(status, "VmHWM:"), Some(20_480));
        assert_eq!(status_kib(status, "VmSwap:"), None);
        assert_eq!(parse_stat_ticks("garbage"), None);
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn reads_this_process() {
        if !std::path::Path::new("/proc/self/stat").exists() {
            return;
        }
        // Burn CPU until the counter moves: it counts clock ticks (10 ms),
        // so a fixed amount of work can finish within one tick.
        let t0 = std::time::Instant::now();
        let mut x = 0u64;
        while thread_cpu_ms() == Some(0) && t0.elapsed() < std::time::Duration::from_secs(10) {
            for i in 0..1_000_000u64 {
                x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(i);
            }
            std::hint::black_box(x);
        }
        assert!(thread_cpu_ms().is_some_and(|ms| ms > 0));
        assert!(process_cpu_ms().is_some());
        let (rss, peak) = resident_kib().unwrap();
        assert!(rss > 0 && peak >= rss);
    }
}
