//! NL: the transition table against the closed form.

use super::*;

/// The closed form of the transition latitude from NL = n to n − 1.
fn transition_f64(n: u32) -> f64 {
    let a = 1.0 - libm::cos(core::f64::consts::PI / 30.0);
    let b = 1.0 - libm::cos(2.0 * core::f64::consts::PI / n as f64);
    libm::acos(libm::sqrt(a / b)).to_degrees()
}

/// The DO-260B closed form of NL, valid away from the transitions.
fn nl_closed_form(lat: f64) -> u8 {
    if lat == 0.0 {
        return 59;
    }
    let a = 1.0 - libm::cos(core::f64::consts::PI / 30.0);
    let c = libm::cos(lat.to_radians());
    let arg = 1.0 - a / (c * c);
    if arg < -1.0 {
        return 1;
    }
    libm::floor(2.0 * core::f64::consts::PI / libm::acos(arg)) as u8
}

#[test]
fn test_nl_table_matches_closed_form() {
    for (k, &t) in NL_TRANSITIONS.iter().enumerate() {
        let n = 59 - k as u32;
        let f = transition_f64(n);
        assert!(
            libm::fabs(t - f) < 1e-12,
            "NL {n}: table {t} vs formula {f}"
        );
    }
    assert_eq!(NL_TRANSITIONS[57], 87.0);
    assert!(NL_TRANSITIONS.windows(2).all(|w| w[0] < w[1]));
}

#[test]
fn test_nl_boundaries() {
    for (k, &t) in NL_TRANSITIONS.iter().enumerate() {
        let n = 59 - k as u8;
        for s in [1.0, -1.0] {
            // At the table value (≤ the exact transition): still n.
            assert_eq!(nl(s * t), n, "at {t}");
            assert_eq!(nl(s * t.next_down()), n, "below {t}");
            assert_eq!(nl(s * t.next_up()), n - 1, "above {t}");
            // Away from the transition, the closed form is reliable.
            for d in [1e-9, 1e-6, 1e-3] {
                assert_eq!(nl(s * (t - d)), n);
                assert_eq!(nl_closed_form(t - d), n, "closed form {t}-{d}");
                assert_eq!(nl(s * (t + d)), n - 1);
                assert_eq!(nl_closed_form(t + d), n - 1, "closed form {t}+{d}");
            }
        }
    }
}

#[test]
fn test_nl_special_values() {
    assert_eq!(nl(0.0), 59);
    assert_eq!(nl(-0.0), 59);
    assert_eq!(nl(0.1), 59);
    assert_eq!(nl(-0.1), 59);
    assert_eq!(nl(45.0), 42);
    assert_eq!(nl(80.0), 10);
    assert_eq!(nl(87.0), 2);
    assert_eq!(nl(-87.0), 2);
    assert_eq!(nl(87.5), 1);
    assert_eq!(nl(-87.5), 1);
    assert_eq!(nl(90.0), 1);
    assert_eq!(nl(-90.0), 1);
    assert_eq!(nl(f64::INFINITY), 1);
    assert_eq!(nl(f64::NAN), 59);
    // §3.6: 66.38° NL 23, 66.36° NL 24.
    assert_eq!(nl(66.38), 23);
    assert_eq!(nl(66.36), 24);
}

#[test]
#[cfg_attr(miri, ignore)]
fn test_nl_sweep_against_closed_form() {
    // Every 0.001° from −90 to 90, skipping 1e-9 around transitions.
    for i in -90_000..=90_000 {
        let lat = i as f64 / 1000.0;
        if NL_TRANSITIONS
            .iter()
            .any(|&t| libm::fabs(libm::fabs(lat) - t) < 1e-9)
        {
            continue;
        }
        assert_eq!(nl(lat), nl_closed_form(lat), "lat {lat}");
    }
}
