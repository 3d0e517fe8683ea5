//! The meaning of a frame: [`Repr`] parses a [`Frame`] into the fields of
//! its downlink format and emits them back, parity included.

use super::{
    AltitudeCode, Capability, ControlField, DownlinkFormat, FlightStatus, Frame, FrameError,
    IdentityCode, InterrogatorCode, field, len_for,
};

/// The bytes of a frame of an unassigned DF, kept verbatim.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct RawFrame {
    bytes: [u8; field::LONG_LEN],
    len: u8,
}

impl RawFrame {
    /// Copy a 7- or 14-byte frame; `None` for other lengths.
    ///
    /// ```
    /// use airwaves_core::modes::frame::RawFrame;
    /// let r = RawFrame::new(&[0x08, 1, 2, 3, 4, 5, 6]).unwrap();
    /// assert_eq!(r.as_bytes().len(), 7);
    /// assert!(RawFrame::new(&[0; 5]).is_none());
    /// ```
    pub fn new(bytes: &[u8]) -> Option<Self> {
        if bytes.len() != field::SHORT_LEN && bytes.len() != field::LONG_LEN {
            return None;
        }
        let mut r = Self {
            bytes: [0; field::LONG_LEN],
            len: bytes.len() as u8,
        };
        r.bytes[..bytes.len()].copy_from_slice(bytes);
        Some(r)
    }

    /// The frame bytes (7 or 14).
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len).min(field::LONG_LEN)]
    }
}

/// The decoded header of a Mode S frame, by downlink format.
///
/// Addresses are 24-bit ICAO addresses (for AP formats recovered from the
/// parity). Fields keep their raw codes where decoding is lossy (altitude,
/// identity), so [`emit`](Repr::emit) reproduces the frame bit for bit,
/// parity included, provided its spare bits are 0. Spare bits (DF0 bits 8,
/// 12–13, 18–19; DF16 bits 7–8, 12–13, 18–19; DF24 bit 3) are not kept and
/// are emitted as 0; the parity is recomputed for the same address, so a
/// frame with spare bits set re-emits as its cleaned equivalent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Repr {
    /// DF0: short air-air surveillance.
    ShortAcas {
        /// Address from AP.
        address: u32,
        /// VS: on the ground.
        vs: bool,
        /// CC: cross-link capable.
        cc: bool,
        /// SL: ACAS sensitivity level, 0–7.
        sl: u8,
        /// RI: reply information, 0–15.
        ri: u8,
        /// AC: altitude code.
        altitude: AltitudeCode,
    },
    /// DF4: surveillance, altitude reply.
    SurveillanceAltitude {
        /// Address from AP.
        address: u32,
        /// FS: flight status.
        fs: FlightStatus,
        /// DR: downlink request, 0–31.
        dr: u8,
        /// UM: utility message, 0–63.
        um: u8,
        /// AC: altitude code.
        altitude: AltitudeCode,
    },
    /// DF5: surveillance, identity reply.
    SurveillanceIdentity {
        /// Address from AP.
        address: u32,
        /// FS: flight status.
        fs: FlightStatus,
        /// DR: downlink request, 0–31.
        dr: u8,
        /// UM: utility message, 0–63.
        um: u8,
        /// ID: identity (squawk) code.
        identity: IdentityCode,
    },
    /// DF11: all-call reply or acquisition squitter.
    AllCall {
        /// CA: capability.
        ca: Capability,
        /// AA: announced address.
        aa: u32,
        /// Interrogator code recovered from the PI field.
        iid: InterrogatorCode,
    },
    /// DF16: long air-air surveillance.
    LongAcas {
        /// Address from AP.
        address: u32,
        /// VS: on the ground.
        vs: bool,
        /// SL: ACAS sensitivity level, 0–7.
        sl: u8,
        /// RI: reply information, 0–15.
        ri: u8,
        /// AC: altitude code.
        altitude: AltitudeCode,
        /// MV: ACAS message.
        mv: [u8; 7],
    },
    /// DF17: extended squitter.
    ExtendedSquitter {
        /// CA: capability.
        ca: Capability,
        /// AA: announced address.
        aa: u32,
        /// ME: the ADS-B message.
        me: [u8; 7],
    },
    /// DF18: extended squitter from a non-transponder device.
    ExtendedSquitterNonTransponder {
        /// CF: control field.
        cf: ControlField,
        /// AA: announced address (ICAO or other, per CF).
        aa: u32,
        /// ME: the ADS-B / TIS-B message.
        me: [u8; 7],
    },
    /// DF19: military extended squitter. Its content is only defined for
    /// AF = 0 (DF18-like), so bits 9–88 and the last 24 bits are kept raw
    /// and not checked.
    MilitaryEs {
        /// AF: application field, 0–7.
        af: u8,
        /// Bits 9–88 (for AF 0: AA then ME).
        payload: [u8; 10],
        /// The last 24 bits, verbatim.
        parity: u32,
    },
    /// DF20: Comm-B, altitude reply.
    CommBAltitude {
        /// Address from AP.
        address: u32,
        /// FS: flight status.
        fs: FlightStatus,
        /// DR: downlink request, 0–31.
        dr: u8,
        /// UM: utility message, 0–63.
        um: u8,
        /// AC: altitude code.
        altitude: AltitudeCode,
        /// MB: Comm-B message.
        mb: [u8; 7],
    },
    /// DF21: Comm-B, identity reply.
    CommBIdentity {
        /// Address from AP.
        address: u32,
        /// FS: flight status.
        fs: FlightStatus,
        /// DR: downlink request, 0–31.
        dr: u8,
        /// UM: utility message, 0–63.
        um: u8,
        /// ID: identity (squawk) code.
        identity: IdentityCode,
        /// MB: Comm-B message.
        mb: [u8; 7],
    },
    /// DF24: Comm-D extended length message segment.
    CommD {
        /// Address from AP.
        address: u32,
        /// KE: control, ELM.
        ke: bool,
        /// ND: number of D-segment, 0–15.
        nd: u8,
        /// MD: the message segment.
        md: [u8; 10],
    },
    /// An unassigned DF, kept verbatim.
    Unknown {
        /// The 5-bit DF code.
        df: u8,
        /// The frame bytes.
        raw: RawFrame,
    },
}

/// The first `N` bytes of `s`, zero-padded if `s` is shorter.
fn padded<const N: usize>(s: &[u8]) -> [u8; N] {
    let mut a = [0u8; N];
    for (d, s) in a.iter_mut().zip(s) {
        *d = *s;
    }
    a
}

impl Repr {
    /// Parse a frame (its length is checked here).
    ///
    /// PI formats are verified: DF17/18 must have remainder 0 and DF11 a
    /// valid interrogator code, else [`FrameError::Parity`]. Repair bit
    /// errors first with [`crc::repair`](crate::modes::crc::repair) if
    /// wanted. AP formats and DF19 cannot be verified.
    ///
    /// # Fuzzing
    ///
    /// Under `cfg(fuzzing)` the parity check is skipped (a DF11 with an
    /// invalid code then parses as II 0), so fuzzers reach the field code.
    ///
    /// ```
    /// use airwaves_core::modes::frame::{Frame, Repr};
    /// let bytes = [0x2A, 0x00, 0x51, 0x6D, 0x49, 0x2B, 0x80];
    /// let repr = Repr::parse(&Frame::new_unchecked(&bytes)).unwrap();
    /// assert_eq!(repr.address(), Some(0x510AF9));
    /// assert_eq!(repr.squawk(), Some(0x0356));
    /// let mut out = [0u8; 7];
    /// repr.emit(&mut Frame::new_unchecked(&mut out[..repr.buffer_len()])).unwrap();
    /// assert_eq!(out, bytes);
    /// ```
    pub fn parse<T: AsRef<[u8]> + ?Sized>(frame: &Frame<&T>) -> Result<Self, FrameError> {
        frame.check_len()?;
        let f = frame;
        Ok(match f.df() {
            DownlinkFormat::ShortAcas => Self::ShortAcas {
                address: f.syndrome(),
                vs: f.vs(),
                cc: f.cc(),
                sl: f.sl(),
                ri: f.ri(),
                altitude: AltitudeCode::from_raw(f.ac13()),
            },
            DownlinkFormat::SurveillanceAltitude => Self::SurveillanceAltitude {
                address: f.syndrome(),
                fs: f.fs(),
                dr: f.dr(),
                um: f.um(),
                altitude: AltitudeCode::from_raw(f.ac13()),
            },
            DownlinkFormat::SurveillanceIdentity => Self::SurveillanceIdentity {
                address: f.syndrome(),
                fs: f.fs(),
                dr: f.dr(),
                um: f.um(),
                identity: IdentityCode::from_raw(f.id13()),
            },
            DownlinkFormat::AllCall => {
                let s = f.syndrome();
                let iid = match InterrogatorCode::from_remainder(s) {
                    Some(iid) => iid,
                    None if cfg!(fuzzing) => InterrogatorCode::Ii(0),
                    None => return Err(FrameError::Parity { syndrome: s }),
                };
                Self::AllCall {
                    ca: f.ca(),
                    aa: f.aa(),
                    iid,
                }
            }
            DownlinkFormat::LongAcas => Self::LongAcas {
                address: f.syndrome(),
                vs: f.vs(),
                sl: f.sl(),
                ri: f.ri(),
                altitude: AltitudeCode::from_raw(f.ac13()),
                mv: padded(f.mv()),
            },
            df @ (DownlinkFormat::ExtendedSquitter
            | DownlinkFormat::ExtendedSquitterNonTransponder) => {
                let s = f.syndrome();
                if s != 0 && !cfg!(fuzzing) {
                    return Err(FrameError::Parity { syndrome: s });
                }
                if df == DownlinkFormat::ExtendedSquitter {
                    Self::ExtendedSquitter {
                        ca: f.ca(),
                        aa: f.aa(),
                        me: padded(f.me()),
                    }
                } else {
                    Self::ExtendedSquitterNonTransponder {
                        cf: f.cf(),
                        aa: f.aa(),
                        me: padded(f.me()),
                    }
                }
            }
            DownlinkFormat::MilitaryExtendedSquitter => Self::MilitaryEs {
                af: f.af(),
                payload: padded(f.md()),
                parity: f.parity(),
            },
            DownlinkFormat::CommBAltitude => Self::CommBAltitude {
                address: f.syndrome(),
                fs: f.fs(),
                dr: f.dr(),
                um: f.um(),
                altitude: AltitudeCode::from_raw(f.ac13()),
                mb: padded(f.mb()),
            },
            DownlinkFormat::CommBIdentity => Self::CommBIdentity {
                address: f.syndrome(),
                fs: f.fs(),
                dr: f.dr(),
                um: f.um(),
                identity: IdentityCode::from_raw(f.id13()),
                mb: padded(f.mb()),
            },
            DownlinkFormat::CommD => Self::CommD {
                address: f.syndrome(),
                ke: f.ke(),
                nd: f.nd(),
                md: padded(f.md()),
            },
            DownlinkFormat::Unknown(df) => Self::Unknown {
                df,
                raw: RawFrame::new(f.as_bytes()).ok_or(FrameError::Length {
                    expected: len_for(f.byte(0)),
                    got: f.as_bytes().len(),
                })?,
            },
        })
    }

    /// The downlink format.
    pub fn df(&self) -> DownlinkFormat {
        match self {
            Self::ShortAcas { .. } => DownlinkFormat::ShortAcas,
            Self::SurveillanceAltitude { .. } => DownlinkFormat::SurveillanceAltitude,
            Self::SurveillanceIdentity { .. } => DownlinkFormat::SurveillanceIdentity,
            Self::AllCall { .. } => DownlinkFormat::AllCall,
            Self::LongAcas { .. } => DownlinkFormat::LongAcas,
            Self::ExtendedSquitter { .. } => DownlinkFormat::ExtendedSquitter,
            Self::ExtendedSquitterNonTransponder { .. } => {
                DownlinkFormat::ExtendedSquitterNonTransponder
            }
            Self::MilitaryEs { .. } => DownlinkFormat::MilitaryExtendedSquitter,
            Self::CommBAltitude { .. } => DownlinkFormat::CommBAltitude,
            Self::CommBIdentity { .. } => DownlinkFormat::CommBIdentity,
            Self::CommD { .. } => DownlinkFormat::CommD,
            Self::Unknown { df, .. } => DownlinkFormat::Unknown(*df),
        }
    }

    /// Length in bytes of the emitted frame (7 or 14).
    pub fn buffer_len(&self) -> usize {
        match self {
            Self::Unknown { raw, .. } => raw.as_bytes().len(),
            r => r.df().frame_len(),
        }
    }

    /// The ICAO address (AA or AP-recovered); `None` for DF19 with AF ≠ 0
    /// and unknown formats.
    pub fn address(&self) -> Option<u32> {
        match *self {
            Self::ShortAcas { address, .. }
            | Self::SurveillanceAltitude { address, .. }
            | Self::SurveillanceIdentity { address, .. }
            | Self::LongAcas { address, .. }
            | Self::CommBAltitude { address, .. }
            | Self::CommBIdentity { address, .. }
            | Self::CommD { address, .. } => Some(address),
            Self::AllCall { aa, .. }
            | Self::ExtendedSquitter { aa, .. }
            | Self::ExtendedSquitterNonTransponder { aa, .. } => Some(aa),
            Self::MilitaryEs { af: 0, payload, .. } => Some(
                (u32::from(payload[0]) << 16)
                    | (u32::from(payload[1]) << 8)
                    | u32::from(payload[2]),
            ),
            Self::MilitaryEs { .. } | Self::Unknown { .. } => None,
        }
    }

    /// Altitude in feet for DF0/4/16/20.
    pub fn altitude_ft(&self) -> Option<i32> {
        match self {
            Self::ShortAcas { altitude, .. }
            | Self::SurveillanceAltitude { altitude, .. }
            | Self::LongAcas { altitude, .. }
            | Self::CommBAltitude { altitude, .. } => altitude.feet(),
            _ => None,
        }
    }

    /// Squawk (octal digits in hex nibbles) for DF5/21.
    pub fn squawk(&self) -> Option<u16> {
        match self {
            Self::SurveillanceIdentity { identity, .. } | Self::CommBIdentity { identity, .. } => {
                Some(identity.squawk())
            }
            _ => None,
        }
    }

    /// Write the frame, parity included, into `frame`, whose buffer must be
    /// exactly [`buffer_len`](Repr::buffer_len) bytes (else
    /// [`FrameError::Length`] and nothing is written). Field values are
    /// masked to their widths; spare bits are written as 0.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]> + ?Sized>(
        &self,
        frame: &mut Frame<&mut T>,
    ) -> Result<(), FrameError> {
        let expected = self.buffer_len();
        let got = frame.buffer.as_ref().len();
        if got != expected {
            return Err(FrameError::Length { expected, got });
        }
        if let Self::Unknown { raw, .. } = self {
            frame.buffer.as_mut().copy_from_slice(raw.as_bytes());
            return Ok(());
        }
        frame.buffer.as_mut().fill(0);
        let f = frame;
        f.set_df(self.df());
        let overlay = match *self {
            Self::ShortAcas {
                address,
                vs,
                cc,
                sl,
                ri,
                altitude,
            } => {
                f.set_vs(vs);
                f.set_cc(cc);
                f.set_sl(sl);
                f.set_ri(ri);
                f.set_ac13(altitude.raw());
                address
            }
            Self::SurveillanceAltitude {
                address,
                fs,
                dr,
                um,
                altitude,
            } => {
                f.set_fs(fs);
                f.set_dr(dr);
                f.set_um(um);
                f.set_ac13(altitude.raw());
                address
            }
            Self::SurveillanceIdentity {
                address,
                fs,
                dr,
                um,
                identity,
            } => {
                f.set_fs(fs);
                f.set_dr(dr);
                f.set_um(um);
                f.set_id13(identity.raw());
                address
            }
            Self::AllCall { ca, aa, iid } => {
                f.set_ca(ca);
                f.set_aa(aa);
                iid.overlay()
            }
            Self::LongAcas {
                address,
                vs,
                sl,
                ri,
                altitude,
                mv,
            } => {
                f.set_vs(vs);
                f.set_sl(sl);
                f.set_ri(ri);
                f.set_ac13(altitude.raw());
                f.set_mv(&mv);
                address
            }
            Self::ExtendedSquitter { ca, aa, me } => {
                f.set_ca(ca);
                f.set_aa(aa);
                f.set_me(&me);
                0
            }
            Self::ExtendedSquitterNonTransponder { cf, aa, me } => {
                f.set_cf(cf);
                f.set_aa(aa);
                f.set_me(&me);
                0
            }
            Self::MilitaryEs {
                af,
                payload,
                parity,
            } => {
                f.set_af(af);
                f.set_md(&payload);
                f.set_parity(parity);
                return Ok(());
            }
            Self::CommBAltitude {
                address,
                fs,
                dr,
                um,
                altitude,
                mb,
            } => {
                f.set_fs(fs);
                f.set_dr(dr);
                f.set_um(um);
                f.set_ac13(altitude.raw());
                f.set_mb(&mb);
                address
            }
            Self::CommBIdentity {
                address,
                fs,
                dr,
                um,
                identity,
                mb,
            } => {
                f.set_fs(fs);
                f.set_dr(dr);
                f.set_um(um);
                f.set_id13(identity.raw());
                f.set_mb(&mb);
                address
            }
            Self::CommD {
                address,
                ke,
                nd,
                md,
            } => {
                f.set_ke(ke);
                f.set_nd(nd);
                f.set_md(&md);
                address
            }
            Self::Unknown { .. } => 0,
        };
        f.fill_parity(overlay);
        Ok(())
    }
}
