//! RDS groups: the content of groups 0A/0B (PS, PTY, TP/TA), 2A/2B
//! (RadioText) and 4A (clock time), built for the encoder and parsed into
//! a [`Station`] for the decoder.
//!
//! Block 2 (B) of every group: bits 15..12 group type, bit 11 version
//! (0 = A, 1 = B), bit 10 TP, bits 9..5 PTY, bits 4..0 type-specific.

/// A received group: the four blocks' data, `None` where a block failed
/// its check (or was not received before synchronisation).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Group {
    /// Blocks A, B, C (or C'), D.
    pub blocks: [Option<u16>; 4],
}

impl Group {
    /// Group type code 0..=15 from block B, if it was received.
    pub fn group_type(&self) -> Option<u8> {
        self.blocks[1].map(|b| (b >> 12) as u8)
    }

    /// `true` for a version B group, if block B was received.
    pub fn version_b(&self) -> Option<bool> {
        self.blocks[1].map(|b| b & 0x0800 != 0)
    }
}

/// Clock time and date as carried by group 4A: UTC, with the local offset.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ClockTime {
    /// Modified Julian Day (17 bits: 0 ..= 131071).
    pub mjd: u32,
    /// UTC hour, 0 ..= 23.
    pub hour: u8,
    /// UTC minute, 0 ..= 59.
    pub minute: u8,
    /// Local time offset from UTC in half hours, −31 ..= 31.
    pub offset_half_hours: i8,
}

impl ClockTime {
    /// Gregorian `(year, month, day)` of [`mjd`](Self::mjd), by the
    /// conversion formula of EN 50067 annex G (valid 1900-03-01 to
    /// 2100-02-28).
    ///
    /// ```
    /// use airwaves_core::rds::group::ClockTime;
    /// let t = ClockTime { mjd: 61377, hour: 13, minute: 45, offset_half_hours: 2 };
    /// assert_eq!(t.date(), (2026, 12, 3));
    /// ```
    pub fn date(&self) -> (u16, u8, u8) {
        let mjd = self.mjd as f64;
        let y1 = libm::floor((mjd - 15078.2) / 365.25);
        let m1 = libm::floor((mjd - 14956.1 - libm::floor(y1 * 365.25)) / 30.6001);
        let d = mjd - 14956.0 - libm::floor(y1 * 365.25) - libm::floor(m1 * 30.6001);
        let k = if m1 == 14.0 || m1 == 15.0 { 1.0 } else { 0.0 };
        (
            (y1 + k + 1900.0) as u16,
            (m1 - 1.0 - k * 12.0) as u8,
            d as u8,
        )
    }

    /// Blocks C and D of group 4A and the two low bits of block B.
    fn emit(&self) -> (u16, u16, u16) {
        let b = ((self.mjd >> 15) & 0x3) as u16;
        let c = (((self.mjd & 0x7FFF) << 1) as u16) | ((self.hour as u16 >> 4) & 1);
        let sign = if self.offset_half_hours < 0 { 0x20 } else { 0 };
        let d = ((self.hour as u16 & 0xF) << 12)
            | ((self.minute as u16 & 0x3F) << 6)
            | sign
            | (self.offset_half_hours.unsigned_abs() as u16 & 0x1F);
        (b, c, d)
    }

    /// Parse from the low two bits of block B and blocks C, D; `None` for
    /// an hour above 23 or a minute above 59 (a corrupt group).
    fn parse(b: u16, c: u16, d: u16) -> Option<Self> {
        let mag = (d & 0x1F) as i8;
        let t = Self {
            mjd: (((b & 0x3) as u32) << 15) | (c >> 1) as u32,
            hour: (((c & 1) << 4) | (d >> 12)) as u8,
            minute: ((d >> 6) & 0x3F) as u8,
            offset_half_hours: if d & 0x20 != 0 { -mag } else { mag },
        };
        (t.hour < 24 && t.minute < 60).then_some(t)
    }
}

/// The programme a transmitter describes: what the encoder sends.
///
/// Build with [`Program::new`] and the `with_*` methods. Text is bytes of
/// the RDS character set (ASCII in 0x20..=0x7E is the same).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Program {
    /// Programme identification code.
    pub pi: u16,
    /// Programme type, 0 ..= 31.
    pub pty: u8,
    /// Traffic programme flag.
    pub tp: bool,
    /// Traffic announcement flag.
    pub ta: bool,
    /// Programme service name, 8 characters.
    pub ps: [u8; 8],
    /// RadioText, up to 64 characters (the first `rt_len` are sent).
    pub rt: [u8; 64],
    /// Number of RadioText characters, 0 ..= 64. Shorter texts are ended
    /// with a carriage return (0x0D).
    pub rt_len: u8,
    /// RadioText A/B flag (toggled when the text changes).
    pub rt_ab: bool,
    /// Clock time sent in group 4A once per group cycle, if any.
    pub clock: Option<ClockTime>,
}

impl Program {
    /// A programme with PI `pi`, PTY 0, PS of 8 spaces, no RadioText and
    /// no clock.
    ///
    /// ```
    /// use airwaves_core::rds::group::Program;
    /// let p = Program::new(0xC201).with_ps(b"AIRWAVES").with_rt(b"Hello");
    /// assert_eq!((p.ps, p.rt_len), (*b"AIRWAVES", 5));
    /// ```
    pub const fn new(pi: u16) -> Self {
        Self {
            pi,
            pty: 0,
            tp: false,
            ta: false,
            ps: *b"        ",
            rt: [b' '; 64],
            rt_len: 0,
            rt_ab: false,
            clock: None,
        }
    }

    /// With the programme service name `ps` (padded with spaces, or cut, to
    /// 8 characters).
    pub const fn with_ps(mut self, ps: &[u8]) -> Self {
        let mut i = 0;
        while i < 8 {
            self.ps[i] = if i < ps.len() { ps[i] } else { b' ' };
            i += 1;
        }
        self
    }

    /// With RadioText `rt` (cut to 64 characters).
    pub const fn with_rt(mut self, rt: &[u8]) -> Self {
        let mut i = 0;
        while i < 64 {
            self.rt[i] = if i < rt.len() { rt[i] } else { b' ' };
            i += 1;
        }
        self.rt_len = if rt.len() < 64 { rt.len() as u8 } else { 64 };
        self
    }

    /// With programme type `pty` (masked to 5 bits) and the TP/TA flags.
    pub const fn with_pty(mut self, pty: u8, tp: bool, ta: bool) -> Self {
        self.pty = pty & 0x1F;
        self.tp = tp;
        self.ta = ta;
        self
    }

    /// With clock time `clock` sent once per group cycle.
    pub const fn with_clock(mut self, clock: ClockTime) -> Self {
        self.clock = Some(clock);
        self
    }

    /// Number of 2A segments needed for the RadioText (the carriage return
    /// included): 0 without text, at most 16.
    pub const fn rt_segments(&self) -> u8 {
        if self.rt_len == 0 {
            0
        } else if self.rt_len >= 64 {
            16
        } else {
            (self.rt_len + 1).div_ceil(4)
        }
    }

    /// RadioText character `i` as sent: the text, then 0x0D, then spaces.
    const fn rt_char(&self, i: usize) -> u8 {
        let n = self.rt_len as usize;
        if i < n {
            self.rt[i]
        } else if i == n {
            0x0D
        } else {
            b' '
        }
    }

    /// Block B's common part: TP and PTY.
    const fn b_common(&self, group_type: u16) -> u16 {
        (group_type << 12) | ((self.tp as u16) << 10) | ((self.pty as u16 & 0x1F) << 5)
    }

    /// Group 0A carrying PS segment `seg` (0..=3).
    pub const fn group_0a(&self, seg: u8) -> [u16; 4] {
        let seg = (seg & 3) as usize;
        // TA, music (1), decoder identification bit (0), segment address.
        let b = self.b_common(0) | ((self.ta as u16) << 4) | (1 << 3) | seg as u16;
        let d = ((self.ps[2 * seg] as u16) << 8) | self.ps[2 * seg + 1] as u16;
        [self.pi, b, 0xE0CD, d] // C: "no alternative frequencies" filler.
    }

    /// Group 2A carrying RadioText segment `seg` (0..=15).
    pub const fn group_2a(&self, seg: u8) -> [u16; 4] {
        let seg = (seg & 15) as usize;
        let b = self.b_common(2) | ((self.rt_ab as u16) << 4) | seg as u16;
        let c = ((self.rt_char(4 * seg) as u16) << 8) | self.rt_char(4 * seg + 1) as u16;
        let d = ((self.rt_char(4 * seg + 2) as u16) << 8) | self.rt_char(4 * seg + 3) as u16;
        [self.pi, b, c, d]
    }

    /// Group 4A carrying `clock`.
    pub fn group_4a(&self, clock: &ClockTime) -> [u16; 4] {
        let (b, c, d) = clock.emit();
        [self.pi, self.b_common(4) | b, c, d]
    }
}

/// What the decoder knows about the station, built up from groups.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Station {
    /// Programme identification code (last received).
    pub pi: Option<u16>,
    /// Programme type, 0 ..= 31.
    pub pty: Option<u8>,
    /// Traffic programme flag.
    pub tp: bool,
    /// Traffic announcement flag (from 0A/0B).
    pub ta: bool,
    /// Programme service name: present once all four segments have been
    /// received consistently (no segment changed meanwhile).
    pub ps: Option<[u8; 8]>,
    /// RadioText, present once every segment up to the end of the text has
    /// been received with the same A/B flag; the length is `rt_len`.
    pub rt: Option<[u8; 64]>,
    /// Length of [`rt`](Self::rt) in characters (without the 0x0D).
    pub rt_len: u8,
    /// Last clock time received.
    pub clock: Option<ClockTime>,
    ps_work: [u8; 8],
    ps_seen: u8,
    rt_work: [u8; 64],
    /// Received character pairs of `rt_work`, bit `i` for chars `2i, 2i+1`.
    rt_seen: u32,
    rt_ab: Option<bool>,
}

impl Default for Station {
    fn default() -> Self {
        Self::new()
    }
}

impl Station {
    /// Nothing known yet.
    pub const fn new() -> Self {
        Self {
            pi: None,
            pty: None,
            tp: false,
            ta: false,
            ps: None,
            rt: None,
            rt_len: 0,
            clock: None,
            ps_work: [b' '; 8],
            ps_seen: 0,
            rt_work: [b' '; 64],
            rt_seen: 0,
            rt_ab: None,
        }
    }

    /// The RadioText as a byte slice, if complete.
    pub fn radiotext(&self) -> Option<&[u8]> {
        self.rt.as_ref().map(|t| &t[..self.rt_len as usize])
    }

    /// Update from one group. Groups other than 0A/0B/2A/2B/4A only update
    /// PI, PTY and TP.
    pub fn update(&mut self, g: &Group) {
        if let Some(a) = g.blocks[0] {
            self.pi = Some(a);
        }
        let Some(b) = g.blocks[1] else { return };
        self.tp = b & 0x0400 != 0;
        self.pty = Some(((b >> 5) & 0x1F) as u8);
        let version_b = b & 0x0800 != 0;
        if version_b {
            if let Some(c) = g.blocks[2] {
                self.pi = Some(c);
            }
        }
        match b >> 12 {
            0 => {
                self.ta = b & 0x10 != 0;
                if let Some(d) = g.blocks[3] {
                    self.ps_segment((b & 3) as usize, d);
                }
            }
            2 => {
                let ab = b & 0x10 != 0;
                if self.rt_ab != Some(ab) {
                    self.rt_ab = Some(ab);
                    self.rt_seen = 0;
                    self.rt_work = [b' '; 64];
                }
                let seg = (b & 0xF) as usize;
                if version_b {
                    if let Some(d) = g.blocks[3] {
                        self.rt_pair(seg, d, 32);
                    }
                } else {
                    if let Some(c) = g.blocks[2] {
                        self.rt_pair(2 * seg, c, 64);
                    }
                    if let Some(d) = g.blocks[3] {
                        self.rt_pair(2 * seg + 1, d, 64);
                    }
                }
            }
            4 if !version_b => {
                if let (Some(c), Some(d)) = (g.blocks[2], g.blocks[3]) {
                    if let Some(t) = ClockTime::parse(b, c, d) {
                        self.clock = Some(t);
                    }
                }
            }
            _ => {}
        }
    }

    /// A PS segment: two characters at `2 seg`.
    fn ps_segment(&mut self, seg: usize, d: u16) {
        let chars = [(d >> 8) as u8, d as u8];
        let bit = 1u8 << seg;
        if self.ps_seen & bit != 0 && self.ps_work[2 * seg..2 * seg + 2] != chars {
            // The name changed: start over from this segment.
            self.ps_seen = 0;
        }
        self.ps_work[2 * seg..2 * seg + 2].copy_from_slice(&chars);
        self.ps_seen |= bit;
        if self.ps_seen == 0xF {
            self.ps = Some(self.ps_work);
        }
    }

    /// A RadioText character pair `pair` (chars `2 pair`, `2 pair + 1`) of
    /// a text at most `max` characters long.
    fn rt_pair(&mut self, pair: usize, v: u16, max: usize) {
        let chars = [(v >> 8) as u8, v as u8];
        if self.rt_seen & (1 << pair) != 0 && self.rt_work[2 * pair..2 * pair + 2] != chars {
            self.rt_seen = 0;
        }
        self.rt_work[2 * pair..2 * pair + 2].copy_from_slice(&chars);
        self.rt_seen |= 1 << pair;
        // Complete when every pair up to the carriage return (or `max`) is in.
        let mut len = max;
        for (i, &c) in self.rt_work[..max].iter().enumerate() {
            if c == 0x0D && self.rt_seen & (1 << (i / 2)) != 0 {
                len = i;
                break;
            }
        }
        let pairs = (len + 1).min(max).div_ceil(2);
        let need = if pairs >= 32 {
            u32::MAX
        } else {
            (1u32 << pairs) - 1
        };
        if self.rt_seen & need == need {
            let mut text = [b' '; 64];
            text[..len].copy_from_slice(&self.rt_work[..len]);
            self.rt = Some(text);
            self.rt_len = len as u8;
        }
    }
}

#[cfg(test)]
mod test {
    use super::*;

    fn all(blocks: [u16; 4]) -> Group {
        Group {
            blocks: blocks.map(Some),
        }
    }

    #[test]
    fn test_emit_parse_0a() {
        let p = Program::new(0xC201)
            .with_ps(b"AIRWAVES")
            .with_pty(10, true, false);
        assert_eq!(
            p.group_0a(1),
            [0xC201, 0x0400 | (10 << 5) | 0x8 | 1, 0xE0CD, 0x5257]
        );
        let mut s = Station::new();
        for seg in 0..3 {
            s.update(&all(p.group_0a(seg)));
        }
        assert_eq!(s.ps, None, "three segments are not a name");
        s.update(&all(p.group_0a(3)));
        assert_eq!(s.ps, Some(*b"AIRWAVES"));
        assert_eq!(
            (s.pi, s.pty, s.tp, s.ta),
            (Some(0xC201), Some(10), true, false)
        );
    }

    #[test]
    fn test_ps_change_restarts() {
        let a = Program::new(1).with_ps(b"AAAAAAAA");
        let b = Program::new(1).with_ps(b"BBBBBBBB");
        let mut s = Station::new();
        s.update(&all(a.group_0a(0)));
        s.update(&all(a.group_0a(1)));
        s.update(&all(b.group_0a(0)));
        s.update(&all(b.group_0a(2)));
        s.update(&all(b.group_0a(3)));
        assert_eq!(
            s.ps, None,
            "segment 1 of the old name must not complete the new"
        );
        s.update(&all(b.group_0a(1)));
        assert_eq!(s.ps, Some(*b"BBBBBBBB"));
    }

    #[test]
    fn test_rt_short_and_ab() {
        let p = Program::new(1).with_rt(b"Hello, world");
        assert_eq!(p.rt_segments(), 4);
        let mut s = Station::new();
        for seg in 0..4 {
            s.update(&all(p.group_2a(seg)));
        }
        assert_eq!(s.radiotext(), Some(&b"Hello, world"[..]));
        // A/B toggle clears the work buffer; the old complete text stays
        // until the new one is complete.
        let mut q = Program::new(1).with_rt(b"Next song");
        q.rt_ab = true;
        s.update(&all(q.group_2a(0)));
        assert_eq!(s.radiotext(), Some(&b"Hello, world"[..]));
        s.update(&all(q.group_2a(1)));
        s.update(&all(q.group_2a(2)));
        assert_eq!(s.radiotext(), Some(&b"Next song"[..]));
    }

    #[test]
    fn test_rt_full_64() {
        let text = *b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ!?";
        let p = Program::new(1).with_rt(&text);
        assert_eq!(p.rt_segments(), 16);
        let mut s = Station::new();
        for seg in 0..16 {
            assert_eq!(s.rt, None);
            s.update(&all(p.group_2a(seg)));
        }
        assert_eq!(s.radiotext(), Some(&text[..]));
    }

    #[test]
    fn test_parse_version_b() {
        // 0B: PI again in C', PS segment 3 "ES"; 2B: 2 chars per segment.
        let mut s = Station::new();
        let g0b = |seg: u16, d: &[u8; 2]| Group {
            blocks: [
                None,
                Some(0x0800 | seg),
                Some(0xBEEF),
                Some(u16::from_be_bytes(*d)),
            ],
        };
        for (seg, d) in [b"AI", b"RW", b"AV", b"ES"].iter().enumerate() {
            s.update(&g0b(seg as u16, d));
        }
        assert_eq!((s.pi, s.ps), (Some(0xBEEF), Some(*b"AIRWAVES")));
        let g2b = |seg: u16, d: &[u8; 2]| Group {
            blocks: [
                Some(0xBEEF),
                Some(0x2800 | seg),
                Some(0xBEEF),
                Some(u16::from_be_bytes(*d)),
            ],
        };
        s.update(&g2b(0, b"Hi"));
        assert_eq!(s.rt, None);
        s.update(&g2b(1, b"!\r"));
        assert_eq!(s.radiotext(), Some(&b"Hi!"[..]));
    }

    #[test]
    fn test_clock_roundtrip() {
        let t = ClockTime {
            mjd: 61377,
            hour: 23,
            minute: 59,
            offset_half_hours: -7,
        };
        let p = Program::new(0x1234);
        let g = p.group_4a(&t);
        assert_eq!(g[1] >> 12, 4);
        let mut s = Station::new();
        s.update(&all(g));
        assert_eq!(s.clock, Some(t));
        // EN 50067 annex G example: MJD 45218 is 1982-09-06.
        let t = ClockTime { mjd: 45218, ..t };
        assert_eq!(t.date(), (1982, 9, 6));
    }

    /// Regression (fuzz `rds`): a 4A group with an hour above 23 or a
    /// minute above 59 is corrupt and leaves the clock as it was.
    #[test]
    fn test_clock_out_of_range_ignored() {
        let good = ClockTime {
            mjd: 61377,
            hour: 13,
            minute: 45,
            offset_half_hours: 2,
        };
        let p = Program::new(0x1234);
        let mut s = Station::new();
        s.update(&all(p.group_4a(&good)));
        for (hour, minute) in [(24, 0), (31, 0), (12, 60), (12, 63)] {
            let mut g = p.group_4a(&good);
            g[2] = (g[2] & !1) | (hour >> 4) & 1;
            g[3] = (g[3] & 0x0FFF & !(0x3F << 6)) | (hour & 0xF) << 12 | minute << 6;
            s.update(&all(g));
            assert_eq!(s.clock, Some(good), "{hour}:{minute}");
        }
    }
}
