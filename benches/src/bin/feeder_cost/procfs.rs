//! The feeder's resources from `/proc`: CPU ticks and resident memory.

/// Resources of a process read from `/proc/PID/stat` and `/proc/PID/status`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) struct ProcSample {
    /// User + system time of all its threads, ticks of 1/[`USER_HZ`](super::USER_HZ) s.
    pub(super) cpu_ticks: u64,
    /// Peak resident set (`VmHWM`), KiB.
    pub(super) hwm_kib: u64,
    /// Current resident set (`VmRSS`), KiB.
    pub(super) rss_kib: u64,
}

/// Fields of `/proc/PID/stat` after the command name, 0-based: field 3 of
/// proc(5) (`state`) is index 0, so field N is index N − 3.
pub(super) fn stat_fields(stat: &str) -> Option<Vec<&str>> {
    // The command name is in parentheses and may itself hold spaces and
    // parentheses: the fields start after the last ')'.
    let rest = &stat[stat.rfind(')')? + 1..];
    Some(rest.split_whitespace().collect())
}

/// `utime + stime` (fields 14 and 15) of a `/proc/PID/stat` line, ticks.
pub(super) fn stat_cpu_ticks(stat: &str) -> Option<u64> {
    let f = stat_fields(stat)?;
    let utime: u64 = f.get(11)?.parse().ok()?;
    let stime: u64 = f.get(12)?.parse().ok()?;
    Some(utime + stime)
}

/// `cutime + cstime` (fields 16 and 17: waited-for children) of a
/// `/proc/PID/stat` line, ticks.
pub(super) fn stat_children_ticks(stat: &str) -> Option<u64> {
    let f = stat_fields(stat)?;
    let cutime: u64 = f.get(13)?.parse().ok()?;
    let cstime: u64 = f.get(14)?.parse().ok()?;
    Some(cutime + cstime)
}

/// Value of a `Key:   N kB` line of `/proc/PID/status`, KiB.
pub(super) fn status_kib(status: &str, key: &str) -> Option<u64> {
    status.lines().find_map(|l| {
        let v = l.strip_prefix(key)?.strip_prefix(':')?;
        v.trim().strip_suffix("kB")?.trim().parse().ok()
    })
}

/// Sample process `pid`; `None` once it has exited (a zombie has no
/// `VmHWM`) or when `/proc` cannot be read.
pub(super) fn sample(pid: u32) -> Option<ProcSample> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    Some(ProcSample {
        cpu_ticks: stat_cpu_ticks(&stat)?,
        hwm_kib: status_kib(&status, "VmHWM")?,
        rss_kib: status_kib(&status, "VmRSS")?,
    })
}

/// CPU time of this program's waited-for children, ticks.
pub(super) fn children_ticks() -> Result<u64, String> {
    let stat = std::fs::read_to_string("/proc/self/stat")
        .map_err(|e| format!("/proc/self/stat: {e} (Linux only)"))?;
    stat_children_ticks(&stat).ok_or_else(|| "/proc/self/stat: no cutime/cstime".to_string())
}
