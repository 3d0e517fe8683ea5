//! The tracker's input: one received frame with its time, signal level and
//! repaired-bit count.

/// One received frame, as given to [`Tracker::update`](super::Tracker::update).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ReceivedFrame<'a> {
    /// The frame: 7 bytes (DF 0–15) or 14 bytes (DF 16–31), already
    /// repaired if bits were corrected.
    pub bytes: &'a [u8],
    /// Reception time, ms: the tracker's clock ([`Tracker::update`](super::Tracker::update)).
    pub t_ms: u64,
    /// Signal level, dBFS (≤ 0); NaN if unknown (not averaged).
    pub signal_dbfs: f32,
    /// Number of bits repaired by CRC error correction (0 if none).
    pub repaired_bits: u8,
    /// The frame is a multilateration result (an mlat-client position,
    /// velocity or altitude synthesised as DF18, Beast timestamp
    /// [`MLAT_TIMESTAMP`](crate::modes::encode::MLAT_TIMESTAMP)), not a
    /// reply heard by a receiver: the aircraft is typed
    /// [`AddressType::Mlat`](super::AddressType::Mlat) and the fields it sets
    /// are marked as MLAT-derived (see the [module docs](super#multilateration-results)).
    pub mlat: bool,
    /// The frame was translated from a UAT (978 MHz) downlink message
    /// ([`uat::esnt`](crate::uat::esnt)), not heard on 1090 MHz: the
    /// aircraft is marked as heard on UAT ([`Aircraft::heard_on_uat`](super::Aircraft::heard_on_uat)).
    pub uat: bool,
}

impl<'a> ReceivedFrame<'a> {
    /// A frame received at `t_ms` without error, signal level unknown.
    ///
    /// ```
    /// use airwaves_core::modes::tracker::ReceivedFrame;
    /// let bytes = [0x5D, 0x48, 0x4F, 0xDE, 0xA2, 0x48, 0xF5];
    /// let f = ReceivedFrame::new(&bytes, 1_000).with_signal(-12.5).with_repaired_bits(1);
    /// assert_eq!((f.t_ms, f.signal_dbfs, f.repaired_bits), (1_000, -12.5, 1));
    /// ```
    pub const fn new(bytes: &'a [u8], t_ms: u64) -> Self {
        ReceivedFrame {
            bytes,
            t_ms,
            signal_dbfs: f32::NAN,
            repaired_bits: 0,
            mlat: false,
            uat: false,
        }
    }

    /// The same frame with a signal level in dBFS.
    pub const fn with_signal(self, signal_dbfs: f32) -> Self {
        ReceivedFrame {
            signal_dbfs,
            ..self
        }
    }

    /// The same frame marked as a multilateration result.
    ///
    /// ```
    /// use airwaves_core::modes::tracker::ReceivedFrame;
    /// assert!(ReceivedFrame::new(&[0x90; 14], 0).as_mlat().mlat);
    /// ```
    pub const fn as_mlat(self) -> Self {
        ReceivedFrame { mlat: true, ..self }
    }

    /// The same frame marked as translated from a UAT downlink message.
    ///
    /// ```
    /// use airwaves_core::modes::tracker::ReceivedFrame;
    /// assert!(ReceivedFrame::new(&[0x90; 14], 0).as_uat().uat);
    /// ```
    pub const fn as_uat(self) -> Self {
        ReceivedFrame { uat: true, ..self }
    }

    /// The same frame with a repaired-bit count.
    pub const fn with_repaired_bits(self, repaired_bits: u8) -> Self {
        ReceivedFrame {
            repaired_bits,
            ..self
        }
    }
}
