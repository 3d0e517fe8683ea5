//! Output encoders for received frames (AVR text and Beast binary) and the
//! matching streaming decoders.
//!
//! The writers take any [`embedded_io::Write`], so a host TCP socket and a
//! microcontroller UART share the same code; the decoders take bytes in
//! chunks of any size and never allocate.
//!
//! # AVR ("raw", port 30002)
//!
//! One frame per line, uppercase hex, `\n` line end, as dump1090 writes it:
//!
//! ```text
//! *8D406B902015A678D4D220AA4BDA;\n            plain
//! @0000075BCD158D406B902015A678D4D220AA4BDA;\n with a timestamp: 12 hex digits
//!                                              of the 48-bit 12 MHz counter
//! ```
//!
//! Frames are 2 (Mode A/C), 7 or 14 bytes. The decoder also accepts `\r\n`,
//! lower-case hex, and the `<` variant (`<` + 12 timestamp digits + 2
//! signal digits + frame + `;`).
//!
//! # Beast binary (port 30005)
//!
//! ```text
//! 0x1A  type  timestamp (6 bytes, big-endian, 12 MHz)  signal (1 byte)  frame
//! ```
//!
//! with type `'1'` (0x31) for Mode A/C (2 bytes), `'2'` (0x32) for a short
//! (7-byte) and `'3'` (0x33) for a long (14-byte) Mode S frame. Every 0x1A
//! byte after the type (in timestamp, signal or frame) is sent twice, so a
//! single 0x1A always starts a message.
//!
//! The signal byte follows dump1090: `round(255 · sqrt(power))` clamped to
//! 255, where `power` is the mean squared magnitude of the message samples
//! with full scale 1.0 (so 255 ≙ 0 dBFS, and dBFS = 20·log10(byte/255)). The
//! encoder takes the byte from the caller; [`signal_byte`] computes it.
//!
//! # Decoding rules
//!
//! Both decoders are byte-at-a-time state machines (so their output does
//! not depend on how the input is split), keep at most one message (≤ 21
//! bytes) of state, and resynchronise on the next start marker after
//! garbage. Messages that are truncated by a new start marker, have a
//! length other than 2/7/14 bytes, or whose first bit disagrees with their
//! length (a DF ≥ 16 needs 14 bytes) are dropped and counted; Beast
//! messages of unknown type (e.g. `'4'` status) are skipped.

use core::fmt;

use embedded_io::{ErrorKind, Write};

/// 12 MHz counter ticks per second (the Beast / dump1090 MLAT clock).
pub const TICKS_PER_SECOND: u64 = super::time::Ticks::HZ;

/// Longest AVR line: `@` + 12 + 28 hex digits + `;\n`.
pub const AVR_MAX_LEN: usize = 1 + 12 + 28 + 2;

/// Longest Beast message: `0x1A`, type, then timestamp, signal and a
/// 14-byte frame, each byte possibly doubled.
pub const BEAST_MAX_LEN: usize = 2 + 2 * (6 + 1 + 14);

const ESC: u8 = 0x1A;

/// Reception time as a 48-bit count of a 12 MHz clock (≈ 271 days before
/// it wraps). The epoch is arbitrary (e.g. the first sample).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Timestamp(u64);

impl Timestamp {
    /// Largest representable tick count, `2⁴⁸ − 1`.
    pub const MAX_TICKS: u64 = (1 << 48) - 1;

    /// From a 12 MHz tick count, keeping the low 48 bits.
    ///
    /// ```
    /// use airwaves_core::modes::encode::Timestamp;
    /// assert_eq!(Timestamp::from_ticks(12_000_000).ticks(), 12_000_000);
    /// assert_eq!(Timestamp::from_ticks(1 << 48).ticks(), 0);
    /// ```
    pub const fn from_ticks(ticks: u64) -> Self {
        Self(ticks & Self::MAX_TICKS)
    }

    /// The tick count, `0 ..= 2⁴⁸ − 1`.
    pub const fn ticks(self) -> u64 {
        self.0
    }

    /// Ticks from `earlier` to `self`, modulo 2⁴⁸ (correct across one
    /// wrap).
    pub const fn ticks_since(self, earlier: Self) -> u64 {
        self.0.wrapping_sub(earlier.0) & Self::MAX_TICKS
    }
}

/// The Beast timestamp that marks a multilateration result: mlat-client
/// sends the positions a server computed back to the receiver as Beast
/// frames stamped `FF 00 4D 4C 41 54` (`"\xFF\x00MLAT"`), which no
/// receiver's 12 MHz clock gives in practice (it is ~8,900 days of ticks).
pub const MLAT_TIMESTAMP: Timestamp = Timestamp(0xFF00_4D4C_4154);

/// Beast signal byte from a mean power (full scale 1.0):
/// `round(255 · sqrt(power))`, clamped to 0–255 (NaN gives 0; exact halves
/// may round either way because `power` is an `f32`).
///
/// ```
/// use airwaves_core::modes::encode::signal_byte;
/// assert_eq!(signal_byte(1.0), 255);
/// assert_eq!(signal_byte(0.25), 128); // −6 dBFS
/// assert_eq!(signal_byte(4.0), 255);
/// ```
pub fn signal_byte(power: f32) -> u8 {
    // round(255·sqrt(p)) is the largest v with (v − ½)² ≤ 255²·p: an
    // 8-step binary search, exact, with no square root.
    let x = power * 65_025.0;
    let mut v = 0u8;
    for bit in (0..8).rev() {
        let c = v | (1 << bit);
        let t = f32::from(c) - 0.5;
        if t * t <= x {
            v = c;
        }
    }
    v
}

/// What a message carries, by length.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum MessageKind {
    /// Mode A/C reply, 2 bytes (Beast type `'1'`).
    ModeAc,
    /// Short Mode S frame, 7 bytes (Beast type `'2'`).
    Short,
    /// Long Mode S frame, 14 bytes (Beast type `'3'`).
    Long,
}

impl MessageKind {
    /// Kind of a frame: by length, and for Mode S the first bit must agree
    /// (set exactly for 14-byte frames). `None` otherwise.
    ///
    /// ```
    /// use airwaves_core::modes::encode::MessageKind;
    /// assert_eq!(MessageKind::of(&[0x5D, 0, 0, 0, 0, 0, 0]), Some(MessageKind::Short));
    /// assert_eq!(MessageKind::of(&[0x8D, 0, 0, 0, 0, 0, 0]), None);
    /// ```
    pub fn of(frame: &[u8]) -> Option<Self> {
        let long = frame.first().is_some_and(|b| b & 0x80 != 0);
        match (frame.len(), long) {
            (2, _) => Some(Self::ModeAc),
            (7, false) => Some(Self::Short),
            (14, true) => Some(Self::Long),
            _ => None,
        }
    }

    /// Frame length in bytes (2, 7 or 14).
    pub const fn frame_len(self) -> usize {
        match self {
            Self::ModeAc => 2,
            Self::Short => 7,
            Self::Long => 14,
        }
    }

    /// The Beast type byte (`'1'`, `'2'`, `'3'`).
    pub const fn beast_type(self) -> u8 {
        match self {
            Self::ModeAc => b'1',
            Self::Short => b'2',
            Self::Long => b'3',
        }
    }

    /// From a Beast type byte; `None` for other types.
    pub const fn from_beast_type(t: u8) -> Option<Self> {
        match t {
            b'1' => Some(Self::ModeAc),
            b'2' => Some(Self::Short),
            b'3' => Some(Self::Long),
            _ => None,
        }
    }
}

/// A received message: frame bytes plus what the feed said about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Message {
    /// Reception time (always present from Beast, `@` and `<` AVR).
    pub timestamp: Option<Timestamp>,
    /// Signal byte (Beast, `<` AVR), see the module docs.
    pub signal: Option<u8>,
    data: [u8; 14],
    kind: MessageKind,
}

impl Message {
    /// A message from frame bytes; `None` unless [`MessageKind::of`]
    /// accepts them.
    ///
    /// ```
    /// use airwaves_core::modes::encode::{Message, Timestamp};
    /// let m = Message::new(&[0x5D, 0x48, 0x4F, 0xDE, 0xA2, 0x48, 0xF5], None, None).unwrap();
    /// assert_eq!(m.frame().len(), 7);
    /// ```
    pub fn new(frame: &[u8], timestamp: Option<Timestamp>, signal: Option<u8>) -> Option<Self> {
        let kind = MessageKind::of(frame)?;
        let mut data = [0u8; 14];
        data.get_mut(..frame.len())?.copy_from_slice(frame);
        Some(Self {
            timestamp,
            signal,
            data,
            kind,
        })
    }

    /// The frame bytes (2, 7 or 14).
    pub fn frame(&self) -> &[u8] {
        &self.data[..self.kind.frame_len()]
    }

    /// The kind, by length.
    pub fn kind(&self) -> MessageKind {
        self.kind
    }

    /// Whether this is a multilateration result (timestamp
    /// [`MLAT_TIMESTAMP`]).
    ///
    /// ```
    /// use airwaves_core::modes::encode::{MLAT_TIMESTAMP, Message, Timestamp};
    /// let f = [0x5D, 0x48, 0x4F, 0xDE, 0xA2, 0x48, 0xF5];
    /// assert!(Message::new(&f, Some(MLAT_TIMESTAMP), None).unwrap().is_mlat());
    /// assert!(!Message::new(&f, Some(Timestamp::from_ticks(1)), None).unwrap().is_mlat());
    /// ```
    pub fn is_mlat(&self) -> bool {
        self.timestamp == Some(MLAT_TIMESTAMP)
    }
}

/// Errors from the encoders.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum EncodeError<E> {
    /// The frame is not 2, 7 or 14 bytes, or its first bit disagrees with
    /// its length ([`MessageKind::of`]). Nothing was written.
    Length {
        /// Length of the frame given.
        got: usize,
    },
    /// The writer failed; part of the message may have been written.
    Io(E),
}

impl<E: fmt::Display> fmt::Display for EncodeError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Length { got } => write!(f, "cannot encode a {got}-byte frame"),
            Self::Io(e) => write!(f, "write failed: {e}"),
        }
    }
}

impl<E: core::error::Error + 'static> core::error::Error for EncodeError<E> {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            Self::Io(e) => Some(e),
            Self::Length { .. } => None,
        }
    }
}

impl<E: embedded_io::Error + 'static> embedded_io::Error for EncodeError<E> {
    /// The writer's kind for `Io`, [`ErrorKind::InvalidInput`] for `Length`.
    fn kind(&self) -> ErrorKind {
        match self {
            Self::Io(e) => e.kind(),
            Self::Length { .. } => ErrorKind::InvalidInput,
        }
    }
}

const HEX: &[u8; 16] = b"0123456789ABCDEF";

/// Encode one AVR line into `out` (no timestamp when `timestamp` is
/// `None`); returns its length.
///
/// ```
/// use airwaves_core::modes::encode::{encode_avr, AVR_MAX_LEN};
/// let mut out = [0u8; AVR_MAX_LEN];
/// let n = encode_avr(&mut out, &[0x5D, 0x48, 0x4F, 0xDE, 0xA2, 0x48, 0xF5], None).unwrap();
/// assert_eq!(&out[..n], b"*5D484FDEA248F5;\n");
/// ```
pub fn encode_avr(
    out: &mut [u8; AVR_MAX_LEN],
    frame: &[u8],
    timestamp: Option<Timestamp>,
) -> Result<usize, EncodeError<core::convert::Infallible>> {
    if MessageKind::of(frame).is_none() {
        return Err(EncodeError::Length { got: frame.len() });
    }
    let mut n = 0;
    let mut put = |b: u8| {
        if let Some(d) = out.get_mut(n) {
            *d = b;
        }
        n += 1;
    };
    match timestamp {
        Some(t) => {
            put(b'@');
            for i in (0..12).rev() {
                put(HEX[((t.ticks() >> (4 * i)) & 0xF) as usize]);
            }
        }
        None => put(b'*'),
    }
    for &b in frame {
        put(HEX[usize::from(b >> 4)]);
        put(HEX[usize::from(b & 0xF)]);
    }
    put(b';');
    put(b'\n');
    Ok(n)
}

/// Encode one Beast message into `out`; returns its length.
///
/// ```
/// use airwaves_core::modes::encode::{encode_beast, Timestamp, BEAST_MAX_LEN};
/// let mut out = [0u8; BEAST_MAX_LEN];
/// let frame = [0x5D, 0x48, 0x4F, 0xDE, 0xA2, 0x48, 0xF5];
/// let n = encode_beast(&mut out, &frame, Timestamp::from_ticks(0x1A), 0x80).unwrap();
/// assert_eq!(&out[..n], &[0x1A, b'2', 0, 0, 0, 0, 0, 0x1A, 0x1A, 0x80,
///                         0x5D, 0x48, 0x4F, 0xDE, 0xA2, 0x48, 0xF5]);
/// ```
pub fn encode_beast(
    out: &mut [u8; BEAST_MAX_LEN],
    frame: &[u8],
    timestamp: Timestamp,
    signal: u8,
) -> Result<usize, EncodeError<core::convert::Infallible>> {
    let Some(kind) = MessageKind::of(frame) else {
        return Err(EncodeError::Length { got: frame.len() });
    };
    let mut n = 0;
    let mut put = |b: u8| {
        if let Some(d) = out.get_mut(n) {
            *d = b;
        }
        n += 1;
    };
    put(ESC);
    put(kind.beast_type());
    let ts = timestamp.ticks().to_be_bytes();
    for &b in ts[2..].iter().chain(core::iter::once(&signal)).chain(frame) {
        put(b);
        if b == ESC {
            put(ESC);
        }
    }
    Ok(n)
}

fn io_error<E>(e: EncodeError<core::convert::Infallible>) -> EncodeError<E> {
    match e {
        EncodeError::Length { got } => EncodeError::Length { got },
        EncodeError::Io(never) => match never {},
    }
}

/// Write `*HEX;\n` for a 2-, 7- or 14-byte frame, with one
/// [`write_all`](Write::write_all). Does not flush.
///
/// ```
/// use airwaves_core::modes::encode::write_avr;
/// let mut buf = [0u8; 64];
/// let mut w = &mut buf[..];
/// write_avr(&mut w, &[0x5D, 0x48, 0x4F, 0xDE, 0xA2, 0x48, 0xF5]).unwrap();
/// assert!(buf.starts_with(b"*5D484FDEA248F5;\n"));
/// ```
pub fn write_avr<W: Write>(w: &mut W, frame: &[u8]) -> Result<(), EncodeError<W::Error>> {
    let mut out = [0u8; AVR_MAX_LEN];
    let n = encode_avr(&mut out, frame, None).map_err(io_error)?;
    w.write_all(&out[..n]).map_err(EncodeError::Io)
}

/// Write `@TTTTTTTTTTTTHEX;\n` (12 hex digits of the 48-bit 12 MHz
/// timestamp). Does not flush.
///
/// ```
/// use airwaves_core::modes::encode::{write_avr_timestamped, Timestamp};
/// let mut buf = [0u8; 64];
/// let mut w = &mut buf[..];
/// let t = Timestamp::from_ticks(0x0123_4567_89AB);
/// write_avr_timestamped(&mut w, &[0x5D, 0x48, 0x4F, 0xDE, 0xA2, 0x48, 0xF5], t).unwrap();
/// assert!(buf.starts_with(b"@0123456789AB5D484FDEA248F5;\n"));
/// ```
pub fn write_avr_timestamped<W: Write>(
    w: &mut W,
    frame: &[u8],
    timestamp: Timestamp,
) -> Result<(), EncodeError<W::Error>> {
    let mut out = [0u8; AVR_MAX_LEN];
    let n = encode_avr(&mut out, frame, Some(timestamp)).map_err(io_error)?;
    w.write_all(&out[..n]).map_err(EncodeError::Io)
}

/// Write one Beast binary message (0x1A bytes doubled). Does not flush.
///
/// ```
/// use airwaves_core::modes::encode::{write_beast, Timestamp};
/// let mut buf = [0u8; 64];
/// let mut w = &mut buf[..];
/// write_beast(&mut w, &[0x12, 0x34], Timestamp::from_ticks(1), 0xFF).unwrap();
/// assert_eq!(&buf[..11], &[0x1A, b'1', 0, 0, 0, 0, 0, 1, 0xFF, 0x12, 0x34]);
/// ```
pub fn write_beast<W: Write>(
    w: &mut W,
    frame: &[u8],
    timestamp: Timestamp,
    signal: u8,
) -> Result<(), EncodeError<W::Error>> {
    let mut out = [0u8; BEAST_MAX_LEN];
    let n = encode_beast(&mut out, frame, timestamp, signal).map_err(io_error)?;
    w.write_all(&out[..n]).map_err(EncodeError::Io)
}

/// A byte-at-a-time stream decoder.
pub trait StreamDecoder {
    /// Consume one byte; returns a message when this byte completes one.
    fn push(&mut self, byte: u8) -> Option<Message>;

    /// Number of malformed messages dropped so far (wrapping).
    fn dropped(&self) -> u32;

    /// Iterate over the messages completed by `data`. Bytes not yet
    /// consumed when the iterator is dropped are lost, so drain it.
    fn feed<'a>(&'a mut self, data: &'a [u8]) -> Messages<'a, Self>
    where
        Self: Sized,
    {
        Messages {
            decoder: self,
            data: data.iter(),
        }
    }
}

/// Iterator returned by [`StreamDecoder::feed`].
#[derive(Debug)]
pub struct Messages<'a, D> {
    decoder: &'a mut D,
    data: core::slice::Iter<'a, u8>,
}

impl<D: StreamDecoder> Iterator for Messages<'_, D> {
    type Item = Message;

    fn next(&mut self) -> Option<Message> {
        for &b in self.data.by_ref() {
            if let Some(m) = self.decoder.push(b) {
                return Some(m);
            }
        }
        None
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BeastState {
    /// Outside a message, waiting for 0x1A.
    Idle,
    /// Saw 0x1A outside a message: the next byte is a type (or a doubled
    /// 0x1A in skipped data).
    Start,
    /// Inside a message body.
    Body,
    /// Saw 0x1A inside a body: a doubled 0x1A or a new message.
    BodyEscape,
}

/// Streaming decoder of Beast binary messages.
///
/// ```
/// use airwaves_core::modes::encode::{BeastDecoder, StreamDecoder};
/// // Junk, then a Mode A/C message whose signal byte 0x1A is doubled.
/// let stream = [0xFF, 0x1A, b'1', 0, 0, 0, 0, 0, 1, 0x1A, 0x1A, 0x12, 0x34];
/// let mut d = BeastDecoder::new();
/// assert_eq!(d.feed(&stream[..5]).count(), 0); // any split gives the same result
/// let m = d.feed(&stream[5..]).next().unwrap();
/// assert_eq!(m.frame(), &[0x12, 0x34]);
/// assert_eq!((m.timestamp.unwrap().ticks(), m.signal), (1, Some(0x1A)));
/// ```
#[derive(Debug, Clone)]
pub struct BeastDecoder {
    state: BeastState,
    kind: MessageKind,
    body: [u8; 21],
    n: u8,
    dropped: u32,
}

impl Default for BeastDecoder {
    fn default() -> Self {
        Self::new()
    }
}

impl BeastDecoder {
    /// A decoder waiting for the first message.
    pub const fn new() -> Self {
        Self {
            state: BeastState::Idle,
            kind: MessageKind::Short,
            body: [0; 21],
            n: 0,
            dropped: 0,
        }
    }

    /// Handle the byte after a start 0x1A.
    fn start(&mut self, t: u8) {
        match MessageKind::from_beast_type(t) {
            Some(kind) => {
                self.kind = kind;
                self.n = 0;
                self.state = BeastState::Body;
            }
            // A doubled 0x1A in skipped data, or an unknown type whose
            // body is skipped up to the next 0x1A.
            None => self.state = BeastState::Idle,
        }
    }

    fn append(&mut self, b: u8) -> Option<Message> {
        let need = 7 + self.kind.frame_len();
        if let Some(d) = self.body.get_mut(usize::from(self.n)) {
            *d = b;
        }
        self.n = self.n.saturating_add(1);
        if usize::from(self.n) < need {
            self.state = BeastState::Body;
            return None;
        }
        self.state = BeastState::Idle;
        let body = self.body.get(..need)?;
        let mut ts = [0u8; 8];
        ts[2..].copy_from_slice(&body[..6]);
        let m = Message::new(
            &body[7..],
            Some(Timestamp::from_ticks(u64::from_be_bytes(ts))),
            Some(body[6]),
        );
        if m.is_none() {
            self.dropped = self.dropped.wrapping_add(1);
        }
        m
    }
}

impl StreamDecoder for BeastDecoder {
    fn push(&mut self, b: u8) -> Option<Message> {
        match self.state {
            BeastState::Idle => {
                if b == ESC {
                    self.state = BeastState::Start;
                }
                None
            }
            BeastState::Start => {
                self.start(b);
                None
            }
            BeastState::Body => {
                if b == ESC {
                    self.state = BeastState::BodyEscape;
                    None
                } else {
                    self.append(b)
                }
            }
            BeastState::BodyEscape => {
                if b == ESC {
                    self.append(ESC)
                } else {
                    // A lone 0x1A: the message was truncated and a new one
                    // starts with type `b`.
                    self.dropped = self.dropped.wrapping_add(1);
                    self.start(b);
                    None
                }
            }
        }
    }

    fn dropped(&self) -> u32 {
        self.dropped
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AvrState {
    /// Between lines.
    Idle,
    /// Reading the 12 timestamp digits.
    Timestamp,
    /// Reading the 2 signal digits of a `<` line.
    Signal,
    /// Reading frame digits up to `;`.
    Data,
}

/// Streaming decoder of AVR text lines (`*…;`, `@…;`, `<…;`).
///
/// A start character (`*`, `@`, `<`) always begins a new line, dropping an
/// unfinished one; any other unexpected character drops the current line;
/// text between lines (line ends, junk) is ignored.
///
/// ```
/// use airwaves_core::modes::encode::{AvrDecoder, StreamDecoder};
/// let mut d = AvrDecoder::new();
/// let mut it = d.feed(b"junk*5d484fdea248f5;\r\n@0000000000FF5D484FDEA248F5;\n");
/// assert_eq!(it.next().unwrap().timestamp, None);
/// assert_eq!(it.next().unwrap().timestamp.unwrap().ticks(), 255);
/// ```
#[derive(Debug, Clone)]
pub struct AvrDecoder {
    state: AvrState,
    /// The start character of the current line.
    start: u8,
    ts: u64,
    signal: u8,
    digits: u8,
    data: [u8; 14],
    dropped: u32,
}

impl Default for AvrDecoder {
    fn default() -> Self {
        Self::new()
    }
}

impl AvrDecoder {
    /// A decoder waiting for the first line.
    pub const fn new() -> Self {
        Self {
            state: AvrState::Idle,
            start: b'*',
            ts: 0,
            signal: 0,
            digits: 0,
            data: [0; 14],
            dropped: 0,
        }
    }

    fn drop_line(&mut self) {
        self.dropped = self.dropped.wrapping_add(1);
        self.state = AvrState::Idle;
    }

    fn finish(&mut self) -> Option<Message> {
        self.state = AvrState::Idle;
        let n = usize::from(self.digits);
        let frame = if n % 2 == 0 {
            self.data.get(..n / 2)
        } else {
            None
        };
        let (ts, signal) = match self.start {
            b'@' => (Some(Timestamp::from_ticks(self.ts)), None),
            b'<' => (Some(Timestamp::from_ticks(self.ts)), Some(self.signal)),
            _ => (None, None),
        };
        let m = frame.and_then(|f| Message::new(f, ts, signal));
        if m.is_none() {
            self.dropped = self.dropped.wrapping_add(1);
        }
        m
    }
}

impl StreamDecoder for AvrDecoder {
    fn push(&mut self, b: u8) -> Option<Message> {
        if matches!(b, b'*' | b'@' | b'<') {
            if self.state != AvrState::Idle {
                self.drop_line();
            }
            self.start = b;
            self.ts = 0;
            self.signal = 0;
            self.digits = 0;
            self.state = if b == b'*' {
                AvrState::Data
            } else {
                AvrState::Timestamp
            };
            return None;
        }
        if self.state == AvrState::Idle {
            return None;
        }
        if self.state == AvrState::Data && b == b';' {
            return self.finish();
        }
        let Some(v) = hex_value(b) else {
            self.drop_line();
            return None;
        };
        match self.state {
            AvrState::Idle => {}
            AvrState::Timestamp => {
                self.ts = (self.ts << 4) | u64::from(v);
                self.digits += 1;
                if self.digits == 12 {
                    self.digits = 0;
                    self.state = if self.start == b'<' {
                        AvrState::Signal
                    } else {
                        AvrState::Data
                    };
                }
            }
            AvrState::Signal => {
                self.signal = (self.signal << 4) | v;
                self.digits += 1;
                if self.digits == 2 {
                    self.digits = 0;
                    self.state = AvrState::Data;
                }
            }
            AvrState::Data => {
                let i = usize::from(self.digits / 2);
                match self.data.get_mut(i) {
                    Some(d) if self.digits % 2 == 0 => *d = v << 4,
                    Some(d) => *d |= v,
                    None => {
                        // More than 28 digits.
                        self.drop_line();
                        return None;
                    }
                }
                self.digits += 1;
            }
        }
        None
    }

    fn dropped(&self) -> u32 {
        self.dropped
    }
}

fn hex_value(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'A'..=b'F' => Some(b - b'A' + 10),
        b'a'..=b'f' => Some(b - b'a' + 10),
        _ => None,
    }
}

#[cfg(test)]
mod test {
    extern crate std;
    use super::*;
    use crate::testing::proptest_config;
    use proptest::prelude::*;
    use std::vec::Vec;

    static LONG: [u8; 14] = [
        0x8d, 0x40, 0x6b, 0x90, 0x20, 0x15, 0xa6, 0x78, 0xd4, 0xd2, 0x20, 0xaa, 0x4b, 0xda,
    ];
    static SHORT: [u8; 7] = [0x5d, 0x48, 0x4f, 0xde, 0xa2, 0x48, 0xf5];

    /// A writer over a `Vec` that accepts at most `chunk` bytes per call
    /// and fails after `limit` bytes.
    struct TestWriter {
        out: Vec<u8>,
        chunk: usize,
        limit: usize,
    }

    impl embedded_io::ErrorType for TestWriter {
        type Error = ErrorKind;
    }

    impl Write for TestWriter {
        fn write(&mut self, buf: &[u8]) -> Result<usize, ErrorKind> {
            if buf.is_empty() {
                return Ok(0);
            }
            if self.out.len() >= self.limit {
                return Err(ErrorKind::BrokenPipe);
            }
            let n = buf.len().min(self.chunk).min(self.limit - self.out.len());
            self.out.extend_from_slice(&buf[..n]);
            Ok(n)
        }
        fn flush(&mut self) -> Result<(), ErrorKind> {
            Ok(())
        }
    }

    fn writer(chunk: usize) -> TestWriter {
        TestWriter {
            out: Vec::new(),
            chunk,
            limit: usize::MAX,
        }
    }

    fn decode_all<D: StreamDecoder>(d: &mut D, data: &[u8]) -> Vec<Message> {
        d.feed(data).collect()
    }

    #[test]
    fn test_emit_avr() {
        let mut w = writer(3);
        write_avr(&mut w, &LONG).unwrap();
        write_avr(&mut w, &SHORT).unwrap();
        write_avr(&mut w, &[0x12, 0x34]).unwrap();
        assert_eq!(
            w.out,
            b"*8D406B902015A678D4D220AA4BDA;\n*5D484FDEA248F5;\n*1234;\n"
        );
        let mut w = writer(100);
        write_avr_timestamped(&mut w, &LONG, Timestamp::from_ticks(0xFEDC_BA98_7654_3210)).unwrap();
        assert_eq!(w.out, b"@BA98765432108D406B902015A678D4D220AA4BDA;\n");
        assert_eq!(w.out.len(), AVR_MAX_LEN);
    }

    #[test]
    fn test_emit_beast() {
        let mut w = writer(5);
        write_beast(&mut w, &LONG, Timestamp::from_ticks(0x1A_0102_1A1A), 0x1A).unwrap();
        let mut want = std::vec![
            0x1A, b'3', 0x00, 0x1A, 0x1A, 0x01, 0x02, 0x1A, 0x1A, 0x1A, 0x1A
        ];
        want.extend_from_slice(&[0x1A, 0x1A]); // signal
        for &b in &LONG {
            want.push(b);
            if b == 0x1A {
                want.push(0x1A);
            }
        }
        assert_eq!(w.out, want);
        // Worst case fits BEAST_MAX_LEN.
        let mut out = [0u8; BEAST_MAX_LEN];
        let mut all = [0x1Au8; 14];
        all[0] = 0x8A; // a long frame cannot start with 0x1A
        let n = encode_beast(
            &mut out,
            &all,
            Timestamp::from_ticks(0x1A1A_1A1A_1A1A),
            0x1A,
        )
        .unwrap();
        assert_eq!(n, BEAST_MAX_LEN - 1);
    }

    #[test]
    fn test_encode_errors() {
        let mut w = writer(100);
        for bad in [&[][..], &[0u8; 3], &[0x8D; 7], &[0x5D; 14], &[0u8; 15]] {
            assert_eq!(
                write_avr(&mut w, bad),
                Err(EncodeError::Length { got: bad.len() })
            );
            assert_eq!(
                write_beast(&mut w, bad, Timestamp::default(), 0),
                Err(EncodeError::Length { got: bad.len() })
            );
        }
        assert!(w.out.is_empty());
        // Writer errors keep their kind.
        let mut w = TestWriter {
            out: Vec::new(),
            chunk: 4,
            limit: 10,
        };
        let e = write_avr(&mut w, &LONG).unwrap_err();
        assert_eq!(e, EncodeError::Io(ErrorKind::BrokenPipe));
        assert_eq!(embedded_io::Error::kind(&e), ErrorKind::BrokenPipe);
        let e: EncodeError<ErrorKind> = EncodeError::Length { got: 3 };
        assert_eq!(embedded_io::Error::kind(&e), ErrorKind::InvalidInput);
        // A full slice reports WriteZero through SliceWriteError.
        let mut buf = [0u8; 8];
        let mut s = &mut buf[..];
        let e = write_beast(&mut s, &SHORT, Timestamp::default(), 0).unwrap_err();
        assert_eq!(embedded_io::Error::kind(&e), ErrorKind::WriteZero);
        assert_eq!(
            std::format!("{}", EncodeError::<ErrorKind>::Length { got: 3 }),
            "cannot encode a 3-byte frame"
        );
    }

    #[test]
    fn test_parse_beast() {
        let mut w = writer(64);
        write_beast(&mut w, &LONG, Timestamp::from_ticks(0x1A1A), 200).unwrap();
        write_beast(&mut w, &SHORT, Timestamp::from_ticks(7), 0x1A).unwrap();
        write_beast(&mut w, &[0x1A, 0x1A], Timestamp::from_ticks(8), 1).unwrap();
        let mut d = BeastDecoder::new();
        let got = decode_all(&mut d, &w.out);
        assert_eq!(got.len(), 3);
        assert_eq!(got[0].frame(), &LONG);
        assert_eq!(got[0].kind(), MessageKind::Long);
        assert_eq!(got[0].timestamp, Some(Timestamp::from_ticks(0x1A1A)));
        assert_eq!(got[0].signal, Some(200));
        assert_eq!(got[1].frame(), &SHORT);
        assert_eq!(got[1].signal, Some(0x1A));
        assert_eq!(got[2].frame(), &[0x1A, 0x1A]);
        assert_eq!(d.dropped(), 0);
    }

    #[test]
    fn test_beast_resync() {
        let mut msg = writer(64);
        write_beast(&mut msg, &SHORT, Timestamp::from_ticks(5), 9).unwrap();
        let msg = msg.out;
        // Garbage (including lone and doubled 0x1A), a truncated message, an
        // unknown type '4' with a body, then a good message.
        let mut s = std::vec![0x00, 0x1A, 0x1A, b'2', 0xFF, 0x1A, 0x00];
        s.extend_from_slice(&msg[..9]); // truncated
        s.extend_from_slice(&[0x1A, b'4', 1, 2, 3, 0x1A, 0x1A, b'3', 4]);
        s.extend_from_slice(&msg);
        let mut d = BeastDecoder::new();
        let got = decode_all(&mut d, &s);
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!(got[0].frame(), &SHORT);
        assert_eq!(got[0].timestamp.unwrap().ticks(), 5);
        assert!(d.dropped() >= 1);
        // A type '3' message whose frame says short is dropped.
        let mut bad = std::vec![0x1A, b'3', 0, 0, 0, 0, 0, 0, 0];
        bad.extend_from_slice(&[0x5D; 14]);
        let mut d = BeastDecoder::new();
        assert!(decode_all(&mut d, &bad).is_empty());
        assert_eq!(d.dropped(), 1);
    }

    #[test]
    fn test_parse_avr() {
        let text = b"*8D406B902015A678D4D220AA4BDA;\n\
            *5d484fdea248f5;\r\n\
            *1234;\n\
            @0123456789AB5D484FDEA248F5;\n\
            <0123456789ABFF5D484FDEA248F5;\n";
        let mut d = AvrDecoder::new();
        let got = decode_all(&mut d, text);
        assert_eq!(got.len(), 5);
        assert_eq!(got[0].frame(), &LONG);
        assert_eq!((got[0].timestamp, got[0].signal), (None, None));
        assert_eq!(got[1].frame(), &SHORT);
        assert_eq!(got[2].frame(), &[0x12, 0x34]);
        assert_eq!(
            got[3].timestamp,
            Some(Timestamp::from_ticks(0x0123_4567_89AB))
        );
        assert_eq!(got[3].signal, None);
        assert_eq!(got[4].signal, Some(0xFF));
        assert_eq!(got[4].frame(), &SHORT);
        assert_eq!(d.dropped(), 0);
    }

    #[test]
    fn test_avr_resync() {
        let text = b"garbage;*5D48;*5D484FDEA248F*5D484FDEA248F5;\n\
            *5D484FDEA248F5\n*5D484FDEA248F5 ;\n*8D484FDEA248F5;\
            @0123*5D484FDEA248F5;*8D406B902015A678D4D220AA4BDA00;";
        let mut d = AvrDecoder::new();
        let got = decode_all(&mut d, text);
        // `*5D48;` is a Mode A/C reply (4 digits); then a line cut by `*`,
        // a good one, lines broken by `\n` and ` `, a 7-byte frame with the
        // long bit, a timestamp cut by `*`, a good one, 30 digits.
        assert_eq!(got.len(), 3, "{got:?}");
        assert_eq!(got[0].frame(), &[0x5D, 0x48]);
        assert_eq!(got[0].kind(), MessageKind::ModeAc);
        assert!(got[1..].iter().all(|m| m.frame() == SHORT));
        assert_eq!(d.dropped(), 6);
    }

    /// Stream lengths for the byte-level properties (small under miri).
    const MAX_STREAM: usize = if cfg!(miri) { 40 } else { 300 };

    fn frame_strategy() -> impl Strategy<Value = Vec<u8>> {
        let byte = prop_oneof![Just(0x1Au8), any::<u8>()];
        (
            prop_oneof![Just(2usize), Just(7), Just(14)],
            proptest::collection::vec(byte, 14),
        )
            .prop_map(|(len, mut v)| {
                v.truncate(len);
                match len {
                    7 => v[0] &= 0x7F,
                    14 => v[0] |= 0x80,
                    _ => {}
                }
                v
            })
    }

    fn ts_strategy() -> impl Strategy<Value = u64> {
        prop_oneof![
            Just(0x1A1A_1A1A_1A1Au64),
            Just(0),
            Just(Timestamp::MAX_TICKS),
            0..=Timestamp::MAX_TICKS
        ]
    }

    proptest! {
        #![proptest_config(proptest_config())]

        #[test]
        fn prop_beast_round_trip(
            msgs in proptest::collection::vec((frame_strategy(), ts_strategy(), prop_oneof![Just(0x1Au8), any::<u8>()]), 0..if cfg!(miri) { 3 } else { 8 }),
            chunk in 1usize..50,
        ) {
            let mut w = writer(chunk);
            for (f, t, s) in &msgs {
                write_beast(&mut w, f, Timestamp::from_ticks(*t), *s).unwrap();
            }
            let mut d = BeastDecoder::new();
            let mut got = Vec::new();
            for c in w.out.chunks(chunk) {
                got.extend(d.feed(c));
            }
            prop_assert_eq!(got.len(), msgs.len());
            for (m, (f, t, s)) in got.iter().zip(&msgs) {
                prop_assert_eq!(m.frame(), &f[..]);
                prop_assert_eq!(m.timestamp, Some(Timestamp::from_ticks(*t)));
                prop_assert_eq!(m.signal, Some(*s));
            }
            prop_assert_eq!(d.dropped(), 0);
        }

        #[test]
        fn prop_avr_round_trip(
            msgs in proptest::collection::vec((frame_strategy(), proptest::option::of(ts_strategy())), 0..if cfg!(miri) { 3 } else { 8 }),
            chunk in 1usize..50,
        ) {
            let mut w = writer(chunk);
            for (f, t) in &msgs {
                match t {
                    Some(t) => write_avr_timestamped(&mut w, f, Timestamp::from_ticks(*t)).unwrap(),
                    None => write_avr(&mut w, f).unwrap(),
                }
            }
            let mut d = AvrDecoder::new();
            let mut got = Vec::new();
            for c in w.out.chunks(chunk) {
                got.extend(d.feed(c));
            }
            prop_assert_eq!(got.len(), msgs.len());
            for (m, (f, t)) in got.iter().zip(&msgs) {
                prop_assert_eq!(m.frame(), &f[..]);
                prop_assert_eq!(m.timestamp, t.map(Timestamp::from_ticks));
            }
        }

        #[cfg_attr(miri, ignore = "heavy under miri")]
        #[test]
        fn prop_chunking_invariant(
            data in proptest::collection::vec(
                prop_oneof![Just(0x1Au8), Just(b'2'), Just(b'*'), Just(b';'), Just(b'A'), any::<u8>()],
                0..MAX_STREAM,
            ),
            cuts in proptest::collection::vec(0usize..MAX_STREAM, 0..10),
        ) {
            let whole_b = decode_all(&mut BeastDecoder::new(), &data);
            let whole_a = decode_all(&mut AvrDecoder::new(), &data);
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(data.len())).collect();
            cuts.push(0);
            cuts.push(data.len());
            cuts.sort_unstable();
            let (mut db, mut da) = (BeastDecoder::new(), AvrDecoder::new());
            let (mut gb, mut ga) = (Vec::new(), Vec::new());
            for w in cuts.windows(2) {
                gb.extend(db.feed(&data[w[0]..w[1]]));
                ga.extend(da.feed(&data[w[0]..w[1]]));
            }
            prop_assert_eq!(gb, whole_b);
            prop_assert_eq!(ga, whole_a);
        }

        #[test]
        fn prop_never_panics(data in proptest::collection::vec(any::<u8>(), 0..2 * MAX_STREAM)) {
            let mut d = BeastDecoder::new();
            for m in d.feed(&data) {
                prop_assert!(MessageKind::of(m.frame()).is_some());
            }
            let mut d = AvrDecoder::new();
            for m in d.feed(&data) {
                prop_assert!(MessageKind::of(m.frame()).is_some());
            }
        }
    }

    #[test]
    fn test_signal_byte() {
        assert_eq!(signal_byte(0.0), 0);
        assert_eq!(signal_byte(-1.0), 0);
        assert_eq!(signal_byte(f32::NAN), 0);
        assert_eq!(signal_byte(f32::INFINITY), 255);
        assert_eq!(signal_byte(0.0101), 26); // ≈ −20 dBFS
        for i in 0..=1000 {
            let p = i as f32 / 1000.0;
            let exact = 255.0 * (p as f64).sqrt();
            assert!(
                (f64::from(signal_byte(p)) - exact).abs() <= 0.5 + 1e-4,
                "{p}"
            );
        }
    }

    #[test]
    fn test_timestamp() {
        let a = Timestamp::from_ticks(Timestamp::MAX_TICKS);
        let b = Timestamp::from_ticks(5);
        assert_eq!(b.ticks_since(a), 6);
        assert_eq!(TICKS_PER_SECOND, 12_000_000);
    }
}
