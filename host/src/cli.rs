//! Command-line pieces shared by the commands: the frequency and gain
//! parsers.

/// Parse "1090000000", "1090M", "2.4M", "100k" into Hz.
pub fn parse_hz(s: &str) -> Result<u64, String> {
    let (num, mult) = match s.chars().last() {
        Some('k' | 'K') => (&s[..s.len() - 1], 1e3),
        Some('M') => (&s[..s.len() - 1], 1e6),
        Some('G') => (&s[..s.len() - 1], 1e9),
        _ => (s, 1.0),
    };
    let v: f64 = num
        .parse()
        .map_err(|_| format!("{s:?} is not a frequency (e.g. 1090000000 or 1090M)"))?;
    let hz = (v * mult).round();
    if !(0.0..=1e12).contains(&hz) {
        return Err(format!("{s:?} is out of range"));
    }
    Ok(hz as u64)
}

/// Parse a gain argument: "auto" or dB (e.g. 49.6) into tenths of a dB.
pub fn parse_gain(s: &str) -> Result<Option<i32>, String> {
    if s == "auto" {
        return Ok(None);
    }
    let db: f64 = s
        .parse()
        .map_err(|_| format!("gain {s:?}: use dB (e.g. 49.6) or auto"))?;
    if !(-10.0..=100.0).contains(&db) {
        return Err(format!("gain {s:?} dB out of range"));
    }
    Ok(Some((db * 10.0).round() as i32))
}

#[cfg(test)]
mod test {
    use super::*;

    #[test]
    fn test_parse_hz() {
        assert_eq!(parse_hz("1090000000"), Ok(1_090_000_000));
        assert_eq!(parse_hz("1090M"), Ok(1_090_000_000));
        assert_eq!(parse_hz("2.4M"), Ok(2_400_000));
        assert_eq!(parse_hz("100k"), Ok(100_000));
        assert!(parse_hz("abc").is_err());
        assert!(parse_hz("-5").is_err());
    }

    #[test]
    fn test_parse_gain() {
        assert_eq!(parse_gain("auto"), Ok(None));
        assert_eq!(parse_gain("49.6"), Ok(Some(496)));
        assert_eq!(parse_gain("0"), Ok(Some(0)));
        assert!(parse_gain("loud").is_err());
        assert!(parse_gain("500").is_err());
    }
}
