//! The buffer ring's cost: `N` buffers of `LEN` bytes copied into the ring
//! ([`airwaves::ring`], `BUFFERS` buffers) and read back.
//!
//! - `threads` (the default): a consumer thread waits for each buffer with
//!   a timeout, as the feeder's and the rtl_tcp server's do; the producer
//!   retries (yielding) while the consumer holds every buffer, so all `N`
//!   arrive.
//! - `same-thread`: grant, copy, commit, pop and release in one thread,
//!   never waiting: the ring's own work, the same on every run.
//! - `copy`: the copy alone, for scale.
//!
//! ```text
//! cargo build --release -p airwaves --example ring_cost
//! target/release/examples/ring_cost [MODE [N [LEN [BUFFERS]]]]   # threads 10000 262144 8
//! valgrind --tool=callgrind target/release/examples/ring_cost same-thread 10000 64
//! ```
//!
//! Under callgrind, (same-thread − copy) / `N` is the ring's instructions
//! per buffer; `threads` adds the waiting and waking, which varies from run
//! to run with the scheduling.

use std::hint::black_box;
use std::thread;
use std::time::{Duration, Instant};

use airwaves::ring::{Consumer, Producer, ring};

const USAGE: &str = "usage: ring_cost [threads|same-thread|copy [N [LEN [BUFFERS]]]]";

fn main() {
    let mut args = std::env::args().skip(1);
    let mode = args.next().unwrap_or_else(|| "threads".into());
    let mut numbers = args.map(|a| a.parse::<usize>().expect(USAGE));
    let n = numbers.next().unwrap_or(10_000);
    let len = numbers.next().unwrap_or(256 * 1024);
    let buffers = numbers.next().unwrap_or(8);
    let (tx, rx) = ring(buffers, len).expect("ring dimensions");
    let data = vec![0x5au8; len];

    let t0 = Instant::now();
    let note = match mode.as_str() {
        "threads" => format!("{} retries on a full ring", threads(tx, rx, &data, n)),
        "same-thread" => {
            same_thread(tx, rx, &data, n);
            String::new()
        }
        "copy" => {
            copy(&data, n);
            String::new()
        }
        _ => panic!("{USAGE}"),
    };
    let ns = t0.elapsed().as_secs_f64() * 1e9 / n as f64;
    println!("{mode}: {n} buffers of {len} bytes through {buffers}: {ns:.0} ns per buffer {note}");
}

/// Returns how often the producer found no free buffer.
fn threads(mut tx: Producer, mut rx: Consumer, data: &[u8], n: usize) -> u64 {
    let consumer = thread::spawn(move || {
        let (mut count, mut bytes) = (0, 0);
        while let Ok(buf) = rx.pop_timeout(Duration::from_secs(10)) {
            count += 1;
            bytes += black_box(&*buf).len();
        }
        (count, bytes)
    });
    let mut retries = 0;
    for _ in 0..n {
        loop {
            if let Some(mut grant) = tx.grant() {
                grant.copy_from_slice(black_box(data));
                grant.commit(data.len());
                break;
            }
            retries += 1;
            thread::yield_now();
        }
    }
    drop(tx);
    let got = consumer.join().expect("consumer thread");
    assert_eq!(got, (n, n * data.len()));
    retries
}

fn same_thread(mut tx: Producer, mut rx: Consumer, data: &[u8], n: usize) {
    for _ in 0..n {
        let mut grant = tx.grant().expect("the consumer holds no buffer");
        grant.copy_from_slice(black_box(data));
        grant.commit(data.len());
        let buf = rx.pop_timeout(Duration::from_secs(1)).expect("a buffer");
        black_box(&*buf);
    }
}

fn copy(data: &[u8], n: usize) {
    let mut sink = vec![0u8; data.len()];
    for _ in 0..n {
        sink.copy_from_slice(black_box(data));
        black_box(&mut sink);
    }
}
