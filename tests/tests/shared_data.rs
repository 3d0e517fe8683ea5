//! The shared test material is where the tests expect it.

#[test]
fn shared_data_is_readable_when_present() {
    let Some(dir) = airwaves_tests::shared_data() else {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "../shared/data is absent (CI=true: it must be present)"
        );
        eprintln!("skipping: ../shared/data is absent");
        return;
    };
    let adsb = dir.join("adsb/capture_1641427457780_2400k.cu8");
    let len = std::fs::metadata(&adsb)
        .expect("ADS-B capture present")
        .len();
    // 54.6 ms at 2.4 MS/s, 2 bytes per sample.
    assert!(
        len > 200_000 && len % 2 == 0,
        "unexpected capture length {len}"
    );
}
