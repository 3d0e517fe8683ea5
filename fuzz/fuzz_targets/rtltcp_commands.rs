//! rtl_tcp wire formats from an untrusted peer: commands a client sends to
//! the server and the 12-byte header a server sends first.
//!
//! Input layout: byte 0 is a split length for [`CommandDecoder`] (1 … 256
//! bytes per `feed`); the rest is the command stream, 5 bytes per command,
//! and its first 12 bytes (or fewer) are also parsed as a header.
//!
//! Checks: [`Command::parse`] never panics; `parse(encode(c)) == c`;
//! `encode(parse(b)) == b` except that a boolean parameter encodes as 1;
//! `Display` starts with the command's name; the stream decoder, fed in
//! pieces, yields the same commands and holds the leftover bytes.
//! [`Header::parse`] accepts exactly the inputs of 12 or more bytes that
//! start with `RTL0`, and an accepted header encodes back to those bytes.
#![no_main]

use airwaves::rtltcp::protocol::{
    COMMAND_LEN, Command, CommandDecoder, HEADER_LEN, Header, HeaderError, MAGIC, code,
};
use libfuzzer_sys::fuzz_target;

/// Codes whose parameter is a boolean (any non-zero value is true).
const BOOLEAN_CODES: [u8; 5] = [
    code::SET_GAIN_MODE,
    code::SET_TEST_MODE,
    code::SET_AGC_MODE,
    code::SET_OFFSET_TUNING,
    code::SET_BIAS_TEE,
];

/// Name prefix of each command's `Display`, by code.
fn display_name(c: u8) -> &'static str {
    match c {
        code::SET_CENTER_FREQ => "set_center_freq ",
        code::SET_SAMPLE_RATE => "set_sample_rate ",
        code::SET_GAIN_MODE => "set_gain_mode ",
        code::SET_GAIN => "set_gain ",
        code::SET_FREQ_CORRECTION => "set_freq_correction ",
        code::SET_IF_GAIN => "set_if_gain ",
        code::SET_TEST_MODE => "set_test_mode ",
        code::SET_AGC_MODE => "set_agc_mode ",
        code::SET_DIRECT_SAMPLING => "set_direct_sampling ",
        code::SET_OFFSET_TUNING => "set_offset_tuning ",
        code::SET_RTL_XTAL => "set_rtl_xtal ",
        code::SET_TUNER_XTAL => "set_tuner_xtal ",
        code::SET_GAIN_BY_INDEX => "set_gain_by_index ",
        code::SET_BIAS_TEE => "set_bias_tee ",
        _ => "unknown 0x",
    }
}

fn check_command(bytes: [u8; COMMAND_LEN]) -> Command {
    let c = Command::parse(bytes);
    let wire = c.encode();
    assert_eq!(Command::parse(wire), c, "{bytes:02x?}");
    let mut want = bytes;
    if BOOLEAN_CODES.contains(&bytes[0]) {
        let on = bytes[1..].iter().any(|&b| b != 0);
        want[1..].copy_from_slice(&u32::from(on).to_be_bytes());
    }
    assert_eq!(wire, want, "{c:?}");
    let (code, param) = c.code_and_param();
    assert_eq!(code, bytes[0]);
    assert_eq!(param.to_be_bytes(), want[1..]);
    let shown = c.to_string();
    assert!(shown.starts_with(display_name(bytes[0])), "{shown:?}");
    c
}

fn check_header(bytes: &[u8]) {
    match Header::parse(bytes) {
        Ok(h) => {
            assert!(bytes.len() >= HEADER_LEN);
            assert_eq!(h.encode()[..], bytes[..HEADER_LEN]);
        }
        Err(e) => {
            let _ = e.to_string();
            match e {
                HeaderError::Truncated { expected, got } => {
                    assert_eq!((expected, got), (HEADER_LEN, bytes.len()));
                    assert!(got < HEADER_LEN);
                    assert!(got < 4 || bytes[..4] == MAGIC);
                }
                HeaderError::BadMagic(m) => {
                    assert_eq!(m[..], bytes[..4]);
                    assert_ne!(m, MAGIC);
                }
            }
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&split, stream)) = data.split_first() else {
        return;
    };
    let commands: Vec<Command> = stream
        .chunks_exact(COMMAND_LEN)
        .map(|b| check_command(b.try_into().expect("5-byte chunk")))
        .collect();

    let mut decoder = CommandDecoder::new();
    let mut streamed = Vec::new();
    for piece in stream.chunks(usize::from(split) + 1) {
        decoder.feed(piece, |c| streamed.push(c));
    }
    assert_eq!(streamed, commands);
    assert_eq!(decoder.pending(), stream.len() % COMMAND_LEN);

    for len in 0..=HEADER_LEN.min(stream.len()) {
        check_header(&stream[..len]);
    }
    check_header(stream);
});
