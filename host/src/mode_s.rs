//! Mode S receive-chain settings shared by the feeder (`airwaves adsb`) and
//! the decoder of recordings ([`crate::decode`]).

use airwaves_core::modes::cpr::Position;
use airwaves_core::modes::tracker::TrackerConfig;

/// The tracker settings for a receiver at `receiver` (degrees): with a
/// location, range checks and receiver-relative CPR decoding out to
/// 180 NM; without one, the defaults.
///
/// # Errors
/// A location that is not a valid latitude/longitude, as a message.
pub fn tracker_config(receiver: Option<Position>) -> Result<TrackerConfig, String> {
    match receiver {
        Some(r) if !(r.is_valid() && (-180.0..=180.0).contains(&r.lon)) => Err(format!(
            "receiver location {}, {} is not a valid latitude/longitude",
            r.lat, r.lon
        )),
        Some(r) => Ok(TrackerConfig {
            receiver_local_range_nm: 180.0,
            ..TrackerConfig::with_receiver(r)
        }),
        None => Ok(TrackerConfig::DEFAULT),
    }
}
