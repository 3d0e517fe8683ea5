//! Surface positions (vectors.md §4).

use super::*;

/// §4.1 Riddle surface example: global (odd newer) and local.
#[test]
fn test_riddle_surface() {
    let even = cpr("8C4841753AAB238733C8CD4020B1");
    let odd = cpr("8C4841753A8A35323FAEBDAC702D");
    assert_eq!(even, CprFrame::surface(false, 115609, 116941));
    assert_eq!(odd, CprFrame::surface(true, 39199, 110269));

    let (j, lat_e, lat_o) = global_lats(even, odd, CprKind::Surface);
    assert_eq!(j, 34);
    assert_full(lat_e, 52.32304000854492);
    assert_full(lat_o, 52.320607072215964);
    assert_eq!((nl(lat_e), nl(lat_o)), (36, 36));
    let (m, lon1) = global_lon(even, odd, true, 36, CprKind::Surface);
    assert_eq!(m, 1);
    assert_eq!(lon_zones(36, true), 35);
    assert_full(lon1, 4.734734671456474);
    assert_full(lat_o - 90.0, -37.679392927784036);

    // t0 = 1457996410 (even), t1 = 1457996412 (odd, newer).
    let r = Reference::receiver(Position::new(51.990, 4.375), 100.0);
    let p = decode_global_surface(
        at(even, 1_457_996_410_000),
        at(odd, 1_457_996_412_000),
        r,
        false,
    )
    .unwrap();
    assert_pos(p, 52.320607, 4.734735, 6);
    assert_full(p.lon, 4.734734671456474);

    // Local from the previous result.
    let f = cpr("8C4841753A9A153237AEF0F275BE");
    assert_eq!(f, CprFrame::surface(true, 39195, 110320));
    let p = local(f, 52.320607, 4.734735).unwrap();
    assert_full(p.lat, 52.32056051997815);
    assert_full(p.lon, 4.735735212053571);

    // rs1090 decodes the even frame alone with ref (51.99, 4.375) and
    // accepts (52.32061, 4.73473) at 1e-3; the exact local answer:
    let p = local(even, 51.99, 4.375).unwrap();
    assert_pos(p, 52.32304, 4.73047, 5);
}

/// §4.2 Toulouse LFBO pair (pyModeS), São Paulo pair, zone mismatch.
#[test]
fn test_lfbo_surface() {
    let even = cpr("903a23ff426a38565950432ebf95");
    let odd = cpr("903a23ff426a4e65f7487a775d17");
    assert_eq!(even.kind(), CprKind::Surface);
    assert!(!even.odd() && odd.odd());

    assert_pos(
        sfc_pair(even, odd, 43.63, 1.37).unwrap(),
        43.62646,
        1.37476,
        5,
    );
    assert_pos(
        sfc_pair(odd, even, 43.63, 1.37).unwrap(),
        43.62648,
        1.37462,
        5,
    );
    assert_pos(
        sfc_pair(even, odd, -43.5, 1.37).unwrap(),
        -46.37354,
        1.44350,
        5,
    );
    assert_pos(
        sfc_pair(even, odd, 43.63, -178.63).unwrap(),
        43.62646,
        -178.62524,
        5,
    );
    assert_pos(
        sfc_pair(even, odd, 43.63, 91.37).unwrap(),
        43.62646,
        91.37476,
        5,
    );
    assert_pos(local(odd, 43.63, 1.37).unwrap(), 43.62646, 1.37476, 5);

    // São Paulo, ms time stamps, odd newer.
    let e = cpr("8FE48C033A9FA184B934E744C6FD");
    let o = cpr("8FE48C033A9FA68F7C3D39B1C2F0");
    let r = Reference::receiver(Position::new(-23.4265448, -46.4816258), 30.0);
    let p = decode_global_surface(at(e, 1_565_608_663_102), at(o, 1_565_608_666_214), r, false)
        .unwrap();
    assert!(libm::fabs(p.lat - -23.4265448) < 0.05, "{p:?}");
    assert!(libm::fabs(p.lon - -46.4816258) < 0.05, "{p:?}");

    // Zone mismatch, ref (50, 0), even newer.
    let e = CprFrame::surface(false, 28672, 0);
    let o = CprFrame::surface(true, 122880, 0);
    assert_eq!(sfc_pair(o, e, 50.0, 0.0), Err(CprError::ZoneMismatch));
}
