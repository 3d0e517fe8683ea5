//! Ending on a signal, as rtl_fm and rtl_sdr users expect: the first
//! SIGINT, SIGTERM or SIGQUIT asks every command to finish (files closed
//! with their headers and JSON complete, its summary printed, exit code 0);
//! a second one exits at once with code 130.
//!
//! The handlers only store to atomics (`signal-hook`'s async-signal-safe
//! flag registration); commands poll [`requested`] in their loops.

use std::sync::Arc;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

/// Exit code after a second signal (128 + SIGINT, as shells report it).
pub const SECOND_SIGNAL_EXIT: i32 = 130;

static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();

fn flag() -> &'static Arc<AtomicBool> {
    FLAG.get_or_init(|| Arc::new(AtomicBool::new(false)))
}

/// Install the handlers (once, at start; later calls do nothing more).
///
/// # Errors
/// The operating system refused a handler.
pub fn install() -> std::io::Result<()> {
    use signal_hook::consts::TERM_SIGNALS;
    use signal_hook::flag as sig;
    for &signal in TERM_SIGNALS {
        // Registered first, so it sees the flag as it was before this
        // signal: set already means this is the second one.
        sig::register_conditional_shutdown(signal, SECOND_SIGNAL_EXIT, Arc::clone(flag()))?;
        sig::register(signal, Arc::clone(flag()))?;
    }
    Ok(())
}

/// Whether a signal has asked the command to finish.
pub fn requested() -> bool {
    flag().load(Ordering::Relaxed)
}

/// Ask the command to finish, as a signal would (for tests).
pub fn request() {
    flag().store(true, Ordering::Relaxed);
}
