//! The feeder's network side: the output hubs and their listening ports,
//! Beast input ports, `--net-connector`s, and each output's heartbeat.
//!
//! | output | port | heartbeat (readsb's) |
//! |---|---|---|
//! | AVR | `--net-ro-port` 30002 | `*0000;` and a newline |
//! | SBS | `--net-sbs-port` 30003 | CR LF |
//! | Beast | `--net-bo-port` 30005 | an all-zero Mode A/C message (`1A 31` and 9 zero bytes) |
//! | reduced Beast | `--net-beast-reduce-out-port` (off) | as Beast |
//! | UAT raw lines (dump978-fa's) | `--net-uat-raw-port` 30978, with a UAT receiver | none (as dump978-fa) |
//! | UAT JSON (dump978-fa's) | `--net-uat-json-port` 30979, with a UAT receiver | none |
//!
//! A `beast_reduce_plus_out` connector first sends the receiver's UUID
//! (`--uuid-file`) as readsb does: `1A E4` and the UUID's 36 characters.

use super::args::AdsbArgs;
use super::pipeline::{OutputSet, Pipeline};
use crate::error::AdsbError;
use crate::net::beast_in::{BeastInSink, BeastInStats, RemoteFrame, listen_beast_in};
use crate::net::connector::{
    ConnectorHandle, ConnectorProtocol, ConnectorSpec, OutputHubs, ReceiverUuid, spawn_connector,
};
use crate::net::fanout::Hub;
use crate::net::listener::{ListenerHandle, listen};
use std::net::SocketAddr;
use std::path::Path;
use std::sync::mpsc::{Receiver, sync_channel};
use std::time::Duration;

/// Bytes a network client may have pending before it is dropped (≈ 10 s
/// of a busy Beast feed).
const CLIENT_BUFFER: usize = 256 * 1024;
/// Beast input frames queued for the decode thread.
pub(super) const BEAST_IN_QUEUE: usize = 8192;
/// How long a replay waits for a client to make room before dropping it.
const REPLAY_CLIENT_WAIT: Duration = Duration::from_secs(10);

/// The heartbeat of the hub named `name` (see the [module docs](self)).
pub fn heartbeat_of(name: &str) -> &'static [u8] {
    match name {
        "raw-out" => b"*0000;\n",
        "sbs-out" => b"\r\n",
        _ => &[0x1A, b'1', 0, 0, 0, 0, 0, 0, 0, 0, 0],
    }
}

/// The UUID in `path` (readsb's `--uuid-file`), or why there is none.
fn read_uuid_file(path: &Path) -> Result<ReceiverUuid, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("--uuid-file {}: {e}", path.display()))?;
    text.trim().parse().map_err(|e| {
        format!(
            "--uuid-file {}: {e} (make one with: uuidgen > {})",
            path.display(),
            path.display()
        )
    })
}

/// The open network side: hubs, listeners, connectors, Beast input.
pub(super) struct Network {
    /// The output hubs (present with `--net`).
    pub(super) hubs: Option<OutputHubs>,
    _listeners: Vec<ListenerHandle>,
    pub(super) connectors: Vec<ConnectorHandle>,
    pub(super) beast_rx: Option<Receiver<RemoteFrame>>,
    pub(super) beast_stats: BeastInStats,
    /// dump978-fa's raw-line and JSON outputs (with a UAT receiver).
    pub(super) uat: Option<UatHubs>,
}

/// The UAT receiver's own outputs, as dump978-fa serves them.
pub(super) struct UatHubs {
    /// Raw lines (`-hex;rs=N;rssi=X;t=S;`, `+hex;…`).
    pub(super) raw: Hub,
    /// One JSON object per downlink message.
    pub(super) json: Hub,
}

impl Network {
    /// The outputs somebody is connected to (nothing else is formatted).
    pub(super) fn outputs(&self) -> OutputSet {
        match &self.hubs {
            Some(h) => OutputSet {
                avr: h.raw.clients() > 0,
                beast: h.beast.clients() > 0,
                sbs: h.sbs.clients() > 0,
                beast_reduce: h.beast_reduce.clients() > 0,
            },
            None => OutputSet::default(),
        }
    }

    pub(super) fn clients(&self) -> Vec<(&'static str, usize)> {
        match &self.hubs {
            Some(h) => vec![
                ("raw_out", h.raw.clients()),
                ("sbs_out", h.sbs.clients()),
                ("beast_out", h.beast.clients()),
                ("beast_reduce_out", h.beast_reduce.clients()),
            ],
            None => Vec::new(),
        }
    }

    pub(super) fn hubs(&self) -> impl Iterator<Item = &Hub> {
        self.hubs
            .iter()
            .flat_map(|h| [&h.raw, &h.sbs, &h.beast, &h.beast_reduce].into_iter())
    }

    /// Send each output's heartbeat ([`heartbeat_of`]) on the hubs that
    /// have clients and published nothing for `idle`, so that an
    /// aggregator's connection to a quiet feeder is not taken for dead.
    pub(super) fn heartbeat(&self, idle: Duration) {
        for hub in self.hubs() {
            hub.heartbeat_if_idle(idle, heartbeat_of(hub.name()));
        }
    }
}

/// Publish the pipeline's batches to the hubs and clear them. With
/// `lossless` (a file replay) clients pace the replay instead of being
/// dropped when they fall behind.
pub(super) fn publish(pipeline: &mut Pipeline, net: &Network, lossless: bool) {
    if let Some(hubs) = &net.hubs {
        let b = pipeline.batches();
        for (hub, bytes) in [
            (&hubs.raw, b.avr.as_slice()),
            (&hubs.beast, b.beast.as_slice()),
            (&hubs.sbs, b.sbs.as_bytes()),
            (&hubs.beast_reduce, b.beast_reduce.as_slice()),
        ] {
            if bytes.is_empty() {
                continue;
            }
            if lossless {
                hub.wait_for_room(bytes.len(), REPLAY_CLIENT_WAIT);
            }
            hub.publish(bytes);
        }
    }
    pipeline.clear_batches();
}

/// Open `port` (0: off) with `start` (a listener on the bind address),
/// the listener kept in `listeners`. The demo goes on without a port
/// another feeder holds.
fn open_port(
    args: &AdsbArgs,
    listeners: &mut Vec<ListenerHandle>,
    port: u16,
    what: &'static str,
    flag: &'static str,
    start: impl FnOnce(SocketAddr) -> std::io::Result<ListenerHandle>,
) -> Result<(), AdsbError> {
    if port == 0 {
        return Ok(());
    }
    let addr = SocketAddr::new(args.net_bind_address, port);
    match start(addr) {
        Ok(l) => {
            if !args.quiet {
                eprintln!("airwaves adsb: {what} on {}", l.local_addr());
            }
            listeners.push(l);
            Ok(())
        }
        Err(source) => {
            let e = AdsbError::Port {
                what,
                flag,
                addr,
                source,
            };
            if args.demo {
                eprintln!("{}; going on without it", e.message());
                Ok(())
            } else {
                Err(e)
            }
        }
    }
}

/// Bind the enabled ports and start the connectors.
pub(super) fn open_network(args: &AdsbArgs, on: bool) -> Result<Network, AdsbError> {
    let mut net = Network {
        hubs: None,
        _listeners: Vec::new(),
        connectors: Vec::new(),
        beast_rx: None,
        beast_stats: BeastInStats::default(),
        uat: None,
    };
    if !on {
        return Ok(net);
    }
    let specs = args
        .net_connector
        .iter()
        .map(|s| {
            s.parse::<ConnectorSpec>()
                .map_err(|source| AdsbError::ConnectorSpec {
                    spec: s.clone(),
                    source,
                })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let wants_uuid = specs
        .iter()
        .any(|s| s.protocol == ConnectorProtocol::BeastReducePlusOut);
    let uuid = if wants_uuid {
        match read_uuid_file(&args.uuid_file) {
            Ok(u) => Some(u),
            Err(why) => {
                eprintln!("airwaves adsb: {why}; beast_reduce_plus_out connects without it");
                None
            }
        }
    } else {
        None
    };
    let hubs = OutputHubs {
        raw: Hub::new("raw-out", CLIENT_BUFFER),
        sbs: Hub::new("sbs-out", CLIENT_BUFFER),
        beast: Hub::new("beast-out", CLIENT_BUFFER),
        beast_reduce: Hub::new("beast-reduce-out", CLIENT_BUFFER),
        uuid,
    };
    for (hub, port, what, flag) in [
        (&hubs.raw, args.net_ro_port, "AVR output", "ro"),
        (&hubs.sbs, args.net_sbs_port, "SBS output", "sbs"),
        (&hubs.beast, args.net_bo_port, "Beast output", "bo"),
        (
            &hubs.beast_reduce,
            args.net_beast_reduce_out_port,
            "reduced Beast output",
            "beast-reduce-out",
        ),
    ] {
        open_port(args, &mut net._listeners, port, what, flag, |a| {
            listen(a, hub.clone())
        })?;
    }
    let bi_ports: Vec<u16> = args
        .net_bi_port
        .iter()
        .copied()
        .filter(|&p| p != 0)
        .collect();
    let wants_in = !bi_ports.is_empty()
        || specs
            .iter()
            .any(|s| s.protocol == ConnectorProtocol::BeastIn);
    let (tx, rx) = sync_channel(BEAST_IN_QUEUE);
    let sink = BeastInSink {
        tx,
        stats: net.beast_stats.clone(),
    };
    if wants_in {
        net.beast_rx = Some(rx);
    }
    for port in bi_ports {
        open_port(args, &mut net._listeners, port, "Beast input", "bi", |a| {
            listen_beast_in(a, sink.clone())
        })?;
    }
    for spec in specs {
        let c = spawn_connector(spec.clone(), &hubs, &sink)
            .map_err(|source| AdsbError::Connector { spec, source })?;
        net.connectors.push(c);
    }
    net.hubs = Some(hubs);
    if args.uat_wanted() {
        let uat = UatHubs {
            raw: Hub::new("uat-raw-out", CLIENT_BUFFER),
            json: Hub::new("uat-json-out", CLIENT_BUFFER),
        };
        for (hub, port, what, flag) in [
            (&uat.raw, args.net_uat_raw_port, "UAT raw output", "uat-raw"),
            (
                &uat.json,
                args.net_uat_json_port,
                "UAT JSON output",
                "uat-json",
            ),
        ] {
            open_port(args, &mut net._listeners, port, what, flag, |a| {
                listen(a, hub.clone())
            })?;
        }
        net.uat = Some(uat);
    }
    Ok(net)
}
