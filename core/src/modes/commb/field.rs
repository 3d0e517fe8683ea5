//! Bit layouts of the Comm-B registers: each field's first MB bit
//! (1-based) and width, as [`Bits`](crate::modes::field56::Bits) or, with
//! its status bit, [`Gated`](crate::modes::field56::Gated). The tables in
//! each register's documentation give the same numbers.

use crate::modes::field56::Bits;

/// The register number in bits 1–8 of 1,0, 2,0 and 3,0.
pub const HEADER: Bits = Bits::new(1, 8);

pub mod bds10 {
    use crate::modes::field56::{Bits, bit};
    pub const CONTINUATION: Bits = bit(9);
    pub const RESERVED: Bits = Bits::new(10, 5);
    pub const OVERLAY: Bits = bit(15);
    pub const ACAS: Bits = bit(16);
    pub const SUBNETWORK: Bits = Bits::new(17, 7);
    pub const LEVEL5: Bits = bit(24);
    pub const SPECIFIC_SERVICES: Bits = bit(25);
    pub const UPLINK_ELM: Bits = Bits::new(26, 3);
    pub const DOWNLINK_ELM: Bits = Bits::new(29, 4);
    pub const IDENTIFICATION: Bits = bit(33);
    pub const SQUITTER: Bits = bit(34);
    pub const SIC: Bits = bit(35);
    pub const GICB: Bits = bit(36);
    pub const HYBRID: Bits = bit(37);
    pub const ACAS_RA: Bits = bit(38);
    pub const ACAS_VERSION: Bits = Bits::new(39, 2);
    pub const DTE: Bits = Bits::new(41, 16);
}

pub mod bds17 {
    use crate::modes::field56::Bits;
    pub const SUPPORTED: Bits = Bits::new(1, 24);
    pub const RESERVED: Bits = Bits::new(25, 32);
}

pub mod bds20 {
    /// Character `i` (0..8): six bits from MB bit 9 + 6·i.
    pub(crate) use crate::modes::charset::char_bits as char;
}

pub mod bds30 {
    use crate::modes::field56::{Bits, bit};
    pub const ARA: Bits = Bits::new(9, 14);
    pub const RAC: Bits = Bits::new(23, 4);
    pub const RAT: Bits = bit(27);
    pub const MTE: Bits = bit(28);
    pub const TTI: Bits = Bits::new(29, 2);
    pub const TID: Bits = Bits::new(31, 26);
    pub const TID_ADDRESS: Bits = Bits::new(31, 24);
    pub const TID_ADDRESS_PAD: Bits = Bits::new(55, 2);
    pub const TIDA: Bits = Bits::new(31, 13);
    pub const TIDR: Bits = Bits::new(44, 7);
    pub const TIDB: Bits = Bits::new(51, 6);
}

pub mod bds40 {
    use crate::modes::field56::{Bits, Gated, bit};
    pub const MCP: Gated = Gated::new(1, 12);
    pub const FMS: Gated = Gated::new(14, 12);
    pub const BARO: Gated = Gated::new(27, 12);
    pub const RESERVED_A: Bits = Bits::new(40, 8);
    pub const MODES: Gated = Gated::new(48, 3);
    pub const VNAV: Bits = bit(49);
    pub const ALT_HOLD: Bits = bit(50);
    pub const APPROACH: Bits = bit(51);
    pub const RESERVED_B: Bits = Bits::new(52, 2);
    pub const SOURCE: Gated = Gated::new(54, 2);
    /// Every status-gated field.
    pub const GATED: [Gated; 5] = [MCP, FMS, BARO, MODES, SOURCE];
}

pub mod bds44 {
    use crate::modes::field56::{Bits, Gated};
    pub const FOM: Bits = Bits::new(1, 4);
    /// Status bit 5; speed bits 6–14 and direction bits 15–23.
    pub const WIND: Gated = Gated::new(5, 18);
    pub const WIND_SPEED: Bits = Bits::new(6, 9);
    pub const WIND_DIRECTION: Bits = Bits::new(15, 9);
    pub const SAT: Bits = Bits::new(24, 11);
    pub const PRESSURE: Gated = Gated::new(35, 11);
    pub const TURBULENCE: Gated = Gated::new(47, 2);
    pub const HUMIDITY: Gated = Gated::new(50, 6);
    /// Every status-gated field.
    pub const GATED: [Gated; 4] = [WIND, PRESSURE, TURBULENCE, HUMIDITY];
}

pub mod bds45 {
    use crate::modes::field56::{Bits, Gated};
    pub const TURBULENCE: Gated = Gated::new(1, 2);
    pub const WIND_SHEAR: Gated = Gated::new(4, 2);
    pub const MICROBURST: Gated = Gated::new(7, 2);
    pub const ICING: Gated = Gated::new(10, 2);
    pub const WAKE_VORTEX: Gated = Gated::new(13, 2);
    pub const SAT: Gated = Gated::new(16, 10);
    pub const PRESSURE: Gated = Gated::new(27, 11);
    pub const RADIO_HEIGHT: Gated = Gated::new(39, 12);
    pub const RESERVED: Bits = Bits::new(52, 5);
    /// Every status-gated field.
    pub const GATED: [Gated; 8] = [
        TURBULENCE,
        WIND_SHEAR,
        MICROBURST,
        ICING,
        WAKE_VORTEX,
        SAT,
        PRESSURE,
        RADIO_HEIGHT,
    ];
}

pub mod bds50 {
    use crate::modes::field56::Gated;
    pub const ROLL: Gated = Gated::new(1, 10);
    pub const TRACK: Gated = Gated::new(12, 11);
    pub const GS: Gated = Gated::new(24, 10);
    pub const TRACK_RATE: Gated = Gated::new(35, 10);
    pub const TAS: Gated = Gated::new(46, 10);
    /// Every status-gated field.
    pub const GATED: [Gated; 5] = [ROLL, TRACK, GS, TRACK_RATE, TAS];
}

pub mod bds60 {
    use crate::modes::field56::Gated;
    pub const HEADING: Gated = Gated::new(1, 11);
    pub const IAS: Gated = Gated::new(13, 10);
    pub const MACH: Gated = Gated::new(24, 10);
    pub const BARO_RATE: Gated = Gated::new(35, 10);
    pub const INERTIAL_RATE: Gated = Gated::new(46, 10);
    /// Every status-gated field.
    pub const GATED: [Gated; 5] = [HEADING, IAS, MACH, BARO_RATE, INERTIAL_RATE];
}
