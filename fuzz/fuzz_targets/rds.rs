//! RDS on arbitrary input: the decoder on any multiplex (bytes as signed
//! samples), and the station state on any sequence of groups (with blocks
//! present or missing). Nothing panics, the decoder's output does not
//! depend on the block split, and what the station publishes stays within
//! its formats (PS 8 bytes, RT at most 64, PTY 0–31, clock fields in
//! range).
//!
//! Input layout: byte 0 selects the rate (`b % 2`: 240 or 228 kHz), bytes
//! 1–2 a little-endian cut point; the rest is both the multiplex (one
//! `i8` per sample, scaled to ±1) and, read as 9-byte records (a presence
//! mask and four big-endian blocks), a group sequence.
#![no_main]

use airwaves_core::rds::decoder::{Decoder, DecoderState};
use airwaves_core::rds::group::{Group, Station};
use libfuzzer_sys::fuzz_target;

const HEADER: usize = 3;

fn check(s: &Station) {
    if let Some(t) = s.radiotext() {
        assert!(t.len() <= 64);
    }
    if let Some(pty) = s.pty {
        assert!(pty < 32);
    }
    if let Some(c) = s.clock {
        assert!(c.hour < 24 && c.minute < 60, "{c:?}");
        let _ = c.date();
    }
}

fuzz_target!(|data: &[u8]| {
    if data.len() < HEADER {
        return;
    }
    let rate = if data[0].is_multiple_of(2) {
        240_000.0
    } else {
        228_000.0
    };
    let body = &data[HEADER..];
    let x: Vec<f32> = body.iter().map(|&b| f32::from(b as i8) / 128.0).collect();
    let cut = usize::from(u16::from_le_bytes([data[1], data[2]])) % (x.len() + 1);
    let dec = Decoder::new(rate).expect("supported rate");
    let mut one = DecoderState::new();
    let mut g1 = Vec::new();
    dec.process_block(&mut one, &x, |g| g1.push(*g));
    let mut two = DecoderState::new();
    let mut g2 = Vec::new();
    let (a, b) = x.split_at(cut);
    dec.process_block(&mut two, a, |g| g2.push(*g));
    dec.process_block(&mut two, b, |g| g2.push(*g));
    assert_eq!(g1, g2, "block split changed the groups (cut {cut})");
    check(one.station());

    let mut station = Station::new();
    for rec in body.chunks_exact(9) {
        let mut blocks = [None; 4];
        for (k, b) in blocks.iter_mut().enumerate() {
            if rec[0] >> k & 1 == 1 {
                *b = Some(u16::from_be_bytes([rec[1 + 2 * k], rec[2 + 2 * k]]));
            }
        }
        let g = Group { blocks };
        let _ = (g.group_type(), g.version_b());
        station.update(&g);
        check(&station);
    }
});
