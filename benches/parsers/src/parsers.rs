//! The three parsers behind one signature, each doing the same work:
//!
//! - check the parity: DF17 must have remainder 0 (else the message is
//!   rejected); for DF20/21 the ICAO address is recovered from the AP field;
//! - decode the downlink format's fields (DF20 altitude, DF21 squawk);
//! - DF17: decode the whole ME field into the crate's typed representation,
//!   and the physical values a user reads first (altitude of airborne
//!   positions; ground speed and track of velocities, which rs1090 computes
//!   while parsing and the others on demand);
//! - DF20/21: the crate's normal Comm-B handling of the MB field.
//!   airwaves runs [`commb::infer`] (context: the DF20 altitude) and decodes
//!   every candidate register into its typed form; rs1090 decodes every
//!   register hypothesis (its `bds-infer` default); adsb_deku only reads the
//!   first byte as a BDS 1,0 / 2,0 header, else keeps the MB raw.
//!
//! Each returns a [`Summary`] of decoded values, so that the optimiser
//! cannot drop the work and the crates' results can be compared.

use std::hint::black_box;

use airwaves_core::modes::adsb::AdsbRepr;
use airwaves_core::modes::commb::{self, Context, Mb};
use airwaves_core::modes::frame::{Frame, Repr};

use crate::corpus::Message;

/// Values every parser decodes, compared across parsers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    /// ICAO address: AA for DF17, recovered from AP for DF20/21.
    pub address: u32,
    /// Altitude, ft: DF17 airborne position, DF20 AC field; 0 if absent.
    pub altitude_ft: i32,
    /// DF21 squawk, octal digits in hex nibbles (7700 → 0x7700); else 0.
    pub squawk: u16,
    /// DF17 velocity over ground, kt, rounded; 0 if absent.
    pub ground_speed_kt: i32,
    /// Comm-B: the parser named one register (see [`Parser::names_register`]).
    pub register_named: bool,
}

/// A parser under test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Parser {
    /// `airwaves_core::modes` (this project).
    Airwaves,
    /// `rs1090` 0.7 `Message::from_bytes`.
    Rs1090,
    /// `adsb_deku` 0.8 `Frame::from_bytes`.
    AdsbDeku,
}

impl Parser {
    /// Every parser, ours first.
    pub const ALL: [Parser; 3] = [Parser::Airwaves, Parser::Rs1090, Parser::AdsbDeku];

    /// Name used on the command line and in the table.
    pub fn name(self) -> &'static str {
        match self {
            Parser::Airwaves => "airwaves",
            Parser::Rs1090 => "rs1090",
            Parser::AdsbDeku => "adsb_deku",
        }
    }

    /// The parser called `name`, if any.
    pub fn from_name(name: &str) -> Option<Parser> {
        Parser::ALL.into_iter().find(|p| p.name() == name)
    }

    /// The parse function.
    pub fn function(self) -> fn(&Message) -> Option<Summary> {
        match self {
            Parser::Airwaves => parse_airwaves,
            Parser::Rs1090 => parse_rs1090,
            Parser::AdsbDeku => parse_adsb_deku,
        }
    }

    /// What "register named" means for this parser's Comm-B output.
    pub fn names_register(self) -> &'static str {
        match self {
            Parser::Airwaves => "infer(): one register, or context separates (Inference::best)",
            Parser::Rs1090 => "MB all zero, or exactly one BDS hypothesis kept",
            Parser::AdsbDeku => "first MB byte 0x00/0x10/0x20 (BDS::Unknown otherwise)",
        }
    }
}

/// Round a speed to whole knots (saturating, NaN → 0).
fn round_kt(kt: f64) -> i32 {
    kt.round() as i32
}

/// airwaves: [`Repr::parse`], then [`AdsbRepr::from_bytes`] for DF17 or
/// [`commb::infer`] + [`commb::Repr::parse`] of every candidate for
/// DF20/21.
#[inline(never)]
pub fn parse_airwaves(msg: &Message) -> Option<Summary> {
    let repr = Repr::parse(&Frame::new_unchecked(&msg[..])).ok()?;
    let mut out = Summary {
        address: repr.address().unwrap_or(0),
        ..Summary::default()
    };
    match repr {
        Repr::ExtendedSquitter { me, .. } => {
            let adsb = black_box(AdsbRepr::from_bytes(&me));
            match adsb {
                AdsbRepr::AirbornePosition(p) => out.altitude_ft = p.altitude_ft().unwrap_or(0),
                AdsbRepr::AirborneVelocity(v) => {
                    out.ground_speed_kt = v.ground_speed_kt().map_or(0, |s| round_kt(s.into()));
                    black_box(v.track_deg());
                }
                _ => {}
            }
        }
        Repr::CommBAltitude { altitude, mb, .. } => {
            let feet = altitude.feet();
            out.altitude_ft = feet.unwrap_or(0);
            let context = Context {
                altitude_ft: feet.map(|ft| ft as f32),
                ..Context::default()
            };
            out.register_named = airwaves_comm_b(&mb, &context);
        }
        Repr::CommBIdentity { identity, mb, .. } => {
            out.squawk = identity.squawk();
            out.register_named = airwaves_comm_b(&mb, &Context::default());
        }
        _ => {}
    }
    Some(out)
}

/// Infer the register of an MB field and decode every candidate; true if
/// the inference names one.
fn airwaves_comm_b(mb: &[u8; commb::MB_LEN], context: &Context) -> bool {
    let view = Mb::new_unchecked(&mb[..]);
    let Ok(inference) = commb::infer(&view, context) else {
        return false;
    };
    for &(bds, _) in inference.candidates() {
        if let Ok(register) = commb::Repr::parse(&view, bds) {
            black_box(&register);
        }
    }
    inference.best().is_some()
}

/// Number of BDS hypotheses rs1090 kept in a DF20/DF21 data selector (the
/// two types have the same fields).
macro_rules! rs1090_candidates {
    ($sel:expr) => {{
        let s = $sel;
        [
            s.bds05.is_some(),
            s.bds10.is_some(),
            s.bds17.is_some(),
            s.bds18.is_some(),
            s.bds19.is_some(),
            s.bds20.is_some(),
            s.bds21.is_some(),
            s.bds30.is_some(),
            s.bds40.is_some(),
            s.bds44.is_some(),
            s.bds45.is_some(),
            s.bds50.is_some(),
            s.bds60.is_some(),
            s.bds65.is_some(),
        ]
        .into_iter()
        .filter(|&b| b)
        .count()
    }};
}

/// rs1090: `Message::from_bytes` (rejects DF17 with a non-zero remainder;
/// decodes every Comm-B hypothesis).
#[inline(never)]
pub fn parse_rs1090(msg: &Message) -> Option<Summary> {
    use rs1090::prelude::*;
    let (_, message) = Message::from_bytes((&msg[..], 0)).ok()?;
    let message = black_box(message);
    let mut out = Summary::default();
    match &message.df {
        ExtendedSquitterADSB(adsb) => {
            out.address = adsb.icao24.0;
            match &adsb.message {
                ME::BDS05 { inner, .. } => out.altitude_ft = inner.alt.unwrap_or(0),
                ME::BDS09(v) => {
                    if let rs1090::decode::bds::bds09::AirborneVelocitySubType::GroundSpeedDecoding(
                        g,
                    ) = &v.velocity
                    {
                        out.ground_speed_kt = round_kt(g.groundspeed);
                    }
                }
                _ => {}
            }
        }
        CommBAltitudeReply { ac, bds, .. } => {
            out.address = message.crc;
            out.altitude_ft = ac.0.unwrap_or(0);
            out.register_named = bds.is_empty || rs1090_candidates!(bds) == 1;
        }
        CommBIdentityReply { id, bds, .. } => {
            out.address = message.crc;
            out.squawk = id.0;
            out.register_named = bds.is_empty || rs1090_candidates!(bds) == 1;
        }
        _ => out.address = message.crc,
    }
    Some(out)
}

/// adsb_deku: `Frame::from_bytes`; it computes the remainder but does not
/// reject a DF17 whose remainder is not 0, so that check is done here.
#[inline(never)]
pub fn parse_adsb_deku(msg: &Message) -> Option<Summary> {
    use adsb_deku::adsb::ME;
    use adsb_deku::bds::BDS;
    use adsb_deku::{DF, Frame};
    let frame = black_box(Frame::from_bytes(&msg[..]).ok()?);
    let mut out = Summary {
        address: frame.crc,
        ..Summary::default()
    };
    match &frame.df {
        DF::ADSB(adsb) => {
            if frame.crc != 0 {
                return None;
            }
            let [a, b, c] = adsb.icao.0;
            out.address = u32::from_be_bytes([0, a, b, c]);
            match &adsb.me {
                ME::AirbornePositionBaroAltitude { altitude, .. }
                | ME::AirbornePositionGNSSAltitude { altitude, .. } => {
                    out.altitude_ft = altitude.alt.map_or(0, i32::from);
                }
                ME::AirborneVelocity(v) => {
                    if let Some((_heading, speed, _rate)) = v.calculate() {
                        out.ground_speed_kt = round_kt(speed);
                    }
                }
                _ => {}
            }
        }
        DF::CommBAltitudeReply { alt, bds, .. } => {
            out.altitude_ft = i32::from(alt.0);
            out.register_named = !matches!(bds, BDS::Unknown { .. });
        }
        DF::CommBIdentityReply { id, bds, .. } => {
            out.squawk = u16::try_from(*id).unwrap_or(u16::MAX);
            out.register_named = !matches!(bds, BDS::Unknown { .. });
        }
        _ => {}
    }
    Some(out)
}

#[cfg(test)]
mod test {
    use super::*;
    use crate::corpus::decode_hex;

    fn frame(hex: &str) -> Message {
        decode_hex(hex).unwrap()
    }

    /// Airborne position, The 1090 MHz Riddle: ICAO 40621D, 38 000 ft.
    #[test]
    fn test_parse_position() {
        let msg = frame("8D40621D58C382D690C8AC2863A7");
        for parser in Parser::ALL {
            let s = parser.function()(&msg).unwrap();
            assert_eq!(s.address, 0x40621D, "{parser:?}");
            assert_eq!(s.altitude_ft, 38_000, "{parser:?}");
        }
    }

    /// Airborne velocity, The 1090 MHz Riddle: 159.20 kt.
    #[test]
    fn test_parse_velocity() {
        let msg = frame("8D485020994409940838175B284F");
        for parser in Parser::ALL {
            let s = parser.function()(&msg).unwrap();
            assert_eq!(s.address, 0x485020, "{parser:?}");
            assert_eq!(s.ground_speed_kt, 159, "{parser:?}");
        }
    }

    /// A DF17 with one bit flipped is rejected by all three.
    #[test]
    fn test_parse_bad_crc() {
        let mut msg = frame("8D485020994409940838175B284F");
        msg[6] ^= 0x01;
        for parser in Parser::ALL {
            assert_eq!(parser.function()(&msg), None, "{parser:?}");
        }
    }

    /// DF20 whose MB is BDS 2,0 "KLM1023": all three recover the same
    /// address and altitude and name the register.
    #[test]
    fn test_parse_comm_b_identification() {
        let mut msg = [0u8; 14];
        // DF20, FS 0, AC 0x1C38 (Q-bit: 38 000 ft), MB = BDS 2,0.
        let mb = [0x20, 0x2C, 0xC3, 0x71, 0xC3, 0x2C, 0xE0];
        let ac: u16 = 0b1_1000_0011_1000;
        msg[0] = 20 << 3;
        msg[2] = (ac >> 8) as u8;
        msg[3] = ac as u8;
        msg[4..11].copy_from_slice(&mb);
        let address = 0x4840D6;
        let rem = airwaves_core::modes::crc::remainder(&msg);
        let ap = rem ^ address;
        msg[11..14].copy_from_slice(&ap.to_be_bytes()[1..]);
        for parser in Parser::ALL {
            let s = parser.function()(&msg).unwrap();
            assert_eq!(s.address, address, "{parser:?}");
            assert_eq!(s.altitude_ft, 38_000, "{parser:?}");
            assert!(s.register_named, "{parser:?}");
        }
    }

    /// Every first byte with a zero body: no parser panics, and the ones
    /// that accept a DF20/21 agree on the recovered address.
    #[test]
    fn test_parse_any_first_byte() {
        for first in 0..=255u8 {
            let mut msg = [0u8; 14];
            msg[0] = first;
            let ours = parse_airwaves(&msg);
            for parser in Parser::ALL {
                let theirs = parser.function()(&msg);
                if matches!(first >> 3, 20 | 21) {
                    let (ours, theirs) = (ours.unwrap(), theirs.unwrap());
                    assert_eq!(ours.address, theirs.address, "{parser:?} {first:#04x}");
                }
            }
        }
    }

    #[test]
    fn test_from_name() {
        for parser in Parser::ALL {
            assert_eq!(Parser::from_name(parser.name()), Some(parser));
        }
        assert_eq!(Parser::from_name("dump1090"), None);
    }
}
