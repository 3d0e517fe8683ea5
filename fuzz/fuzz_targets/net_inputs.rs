//! Network inputs from untrusted peers and the command line:
//! `--net-connector` specs and Beast binary streams.
//!
//! Input layout: byte 0 bit 0 picks the part.
//!
//! - Bit 0 clear: the rest, as (lossy) UTF-8, is a connector spec.
//!   [`ConnectorSpec::from_str`] never panics, an accepted spec has a
//!   non-empty host without whitespace or commas and a port in 1–65535,
//!   and its `Display` parses back to an equal spec.
//! - Bit 0 set: `[flags, n, len_1 … len_n, stream…]`. The stream goes
//!   through [`pump_beast`] from a reader that returns chunks of `len_1`,
//!   `len_2`, … bytes in turn (a 0 gives a `WouldBlock` or `Interrupted`
//!   error the first time round, then the rest of the stream); `n` is
//!   taken mod 8. `flags` bit 7 gives a channel large enough for every
//!   frame, else its capacity is `1 + (flags & 3)` so the full-channel
//!   path runs; bit 6 drops the receiver first; bit 5 sets the stop flag
//!   first (nothing may be read or delivered). The frames delivered must
//!   be the first ones a one-shot [`BeastDecoder`] finds in the stream, in
//!   order, and the counters must add up (bytes, frames, dropped,
//!   malformed).
#![no_main]

use std::collections::VecDeque;
use std::io::{self, Read};
use std::sync::atomic::AtomicBool;
use std::sync::mpsc::sync_channel;

use airwaves::net::beast_in::{BeastInSink, BeastInStats, PeerId, PumpEnd, pump_beast};
use airwaves::net::connector::ConnectorSpec;
use airwaves_core::modes::encode::{BeastDecoder, StreamDecoder};
use libfuzzer_sys::fuzz_target;

/// Returns the stream in chunks of the given lengths, cycling through
/// them; see the module docs for 0.
struct ChunkReader<'a> {
    data: &'a [u8],
    lengths: VecDeque<(usize, bool)>,
    /// Errors returned so far (they alternate in kind).
    errors: usize,
}

impl Read for ChunkReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.data.is_empty() {
            return Ok(0);
        }
        let Some((len, first)) = self.lengths.pop_front() else {
            let n = self.data.len().min(buf.len());
            buf[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            return Ok(n);
        };
        self.lengths.push_back((len, false));
        if len == 0 && first {
            self.errors += 1;
            let kind = if self.errors.is_multiple_of(2) {
                io::ErrorKind::WouldBlock
            } else {
                io::ErrorKind::Interrupted
            };
            return Err(io::Error::from(kind));
        }
        let want = if len == 0 { self.data.len() } else { len };
        let n = want.min(self.data.len()).min(buf.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

fn connector_spec(bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    match text.parse::<ConnectorSpec>() {
        Ok(spec) => {
            assert!(!spec.host.is_empty());
            assert!(
                !spec.host.contains(|c: char| c.is_whitespace() || c == ','),
                "{spec:?}"
            );
            assert_ne!(spec.port, 0);
            let shown = spec.to_string();
            assert_eq!(
                shown.parse::<ConnectorSpec>().as_ref(),
                Ok(&spec),
                "{shown:?}"
            );
        }
        Err(e) => assert!(!e.to_string().is_empty()),
    }
}

fn beast_stream(data: &[u8]) {
    let [flags, n, rest @ ..] = data else {
        return;
    };
    let n = usize::from(n % 8);
    let Some((lengths, stream)) = rest.split_at_checked(n) else {
        return;
    };
    let mut oneshot = BeastDecoder::new();
    let want: Vec<_> = oneshot.feed(stream).collect();

    let capacity = if flags & 0x80 != 0 {
        want.len().max(1)
    } else {
        1 + usize::from(flags & 3)
    };
    let (tx, rx) = sync_channel(capacity);
    let sink = BeastInSink {
        tx,
        stats: BeastInStats::default(),
    };
    let peer = sink.stats.new_peer();
    let rx = if flags & 0x40 != 0 {
        drop(rx);
        None
    } else {
        Some(rx)
    };
    let reader = ChunkReader {
        data: stream,
        lengths: lengths.iter().map(|&l| (usize::from(l), true)).collect(),
        errors: 0,
    };
    let stop = AtomicBool::new(flags & 0x20 != 0);
    let end = pump_beast(reader, &sink, peer, &stop).expect("the reader never fails");
    let counts = sink.stats.counts();
    assert_eq!(counts.connections, 1);
    assert_eq!(peer, PeerId(0));
    if flags & 0x20 != 0 {
        assert_eq!(end, PumpEnd::Stopped);
        assert_eq!(
            (counts.bytes, counts.frames, counts.dropped_full),
            (0, 0, 0)
        );
        return;
    }

    let Some(rx) = rx else {
        let expect = if want.is_empty() {
            PumpEnd::Eof
        } else {
            PumpEnd::ReceiverGone
        };
        assert_eq!(end, expect);
        assert_eq!(counts.frames, 0);
        return;
    };
    assert_eq!(end, PumpEnd::Eof);
    let got: Vec<_> = rx.try_iter().collect();
    assert_eq!(got.len(), want.len().min(capacity));
    for (g, w) in got.iter().zip(&want) {
        assert_eq!(g.peer, peer);
        assert_eq!(&g.message, w);
    }
    assert_eq!(counts.bytes, stream.len() as u64);
    assert_eq!(counts.frames, got.len() as u64);
    assert_eq!(counts.dropped_full, (want.len() - got.len()) as u64);
    assert_eq!(counts.malformed, u64::from(oneshot.dropped()));
}

fuzz_target!(|data: &[u8]| {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    if which & 1 == 0 {
        connector_spec(rest);
    } else {
        beast_stream(rest);
    }
});
