//! Rate-limited log lines: a burst of the same kind of event (a client
//! sending 10 000 commands, a peer resetting in a loop) prints the first
//! few lines of each window and then one count of the rest, not a line per
//! event.

use std::time::{Duration, Instant};

/// At most `per_window` lines per `window`; the rest counted.
#[derive(Debug, Clone)]
pub struct LogLimit {
    per_window: u32,
    window: Duration,
    start: Option<Instant>,
    printed: u32,
    suppressed: u64,
}

impl LogLimit {
    /// Up to `per_window` lines every `window`.
    pub const fn new(per_window: u32, window: Duration) -> LogLimit {
        LogLimit {
            per_window,
            window,
            start: None,
            printed: 0,
            suppressed: 0,
        }
    }

    /// An event at `now`: `(print it, lines suppressed before it)`. The
    /// count is non-zero once, on the first line printed after a window in
    /// which lines were suppressed; say it then.
    ///
    /// ```
    /// use airwaves::log_limit::LogLimit;
    /// use std::time::{Duration, Instant};
    /// let mut l = LogLimit::new(2, Duration::from_secs(1));
    /// let t = Instant::now();
    /// assert_eq!(l.event(t), (true, 0));
    /// assert_eq!(l.event(t), (true, 0));
    /// assert_eq!(l.event(t), (false, 0));
    /// assert_eq!(l.event(t), (false, 0));
    /// assert_eq!(l.event(t + Duration::from_secs(1)), (true, 2));
    /// assert_eq!(l.finish(), 0);
    /// ```
    pub fn event(&mut self, now: Instant) -> (bool, u64) {
        let start = *self.start.get_or_insert(now);
        if now.duration_since(start) >= self.window {
            self.start = Some(now);
            self.printed = 0;
        }
        if self.printed < self.per_window {
            self.printed += 1;
            (true, std::mem::take(&mut self.suppressed))
        } else {
            self.suppressed += 1;
            (false, 0)
        }
    }

    /// Lines suppressed in a window that has ended with no event since
    /// (say them now: a burst that stops is counted without waiting for
    /// the next event or the end). Returns 0 until then.
    ///
    /// ```
    /// use airwaves::log_limit::LogLimit;
    /// use std::time::{Duration, Instant};
    /// let mut l = LogLimit::new(1, Duration::from_secs(1));
    /// let t = Instant::now();
    /// l.event(t);
    /// l.event(t);
    /// l.event(t);
    /// assert_eq!(l.overdue(t + Duration::from_millis(500)), 0);
    /// assert_eq!(l.overdue(t + Duration::from_secs(1)), 2);
    /// assert_eq!(l.overdue(t + Duration::from_secs(2)), 0);
    /// assert_eq!(l.event(t + Duration::from_secs(2)), (true, 0));
    /// ```
    pub fn overdue(&mut self, now: Instant) -> u64 {
        match self.start {
            Some(start) if self.suppressed > 0 && now.duration_since(start) >= self.window => {
                self.start = Some(now);
                self.printed = 0;
                std::mem::take(&mut self.suppressed)
            }
            _ => 0,
        }
    }

    /// Lines suppressed and not yet reported (say them at the end).
    pub fn finish(&mut self) -> u64 {
        std::mem::take(&mut self.suppressed)
    }
}
