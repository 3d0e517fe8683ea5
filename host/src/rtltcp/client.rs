//! An rtl_tcp client: connect, check the header, send typed commands, read
//! the I/Q byte stream into caller buffers.
//!
//! Reconnecting is the caller's business; errors say what happened
//! ([`ClientError::Closed`], [`ClientError::Timeout`],
//! [`ClientError::BadHeader`], [`ClientError::Io`]).

use super::protocol::{Command, HEADER_LEN, Header, HeaderError, MAGIC};
use std::fmt;
use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::time::Duration;

/// Why a client call failed.
#[derive(Debug)]
pub enum ClientError {
    /// The server closed the connection.
    Closed,
    /// Nothing arrived within the read timeout (or the connect timeout).
    Timeout,
    /// The peer's first 12 bytes are not an rtl_tcp header.
    BadHeader(HeaderError),
    /// Any other socket error.
    Io(io::Error),
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClientError::Closed => f.write_str("rtl_tcp server closed the connection"),
            ClientError::Timeout => f.write_str("rtl_tcp server sent nothing within the timeout"),
            ClientError::BadHeader(e) => e.fmt(f),
            ClientError::Io(e) => write!(f, "rtl_tcp connection: {e}"),
        }
    }
}

impl std::error::Error for ClientError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ClientError::BadHeader(e) => Some(e),
            ClientError::Io(e) => Some(e),
            _ => None,
        }
    }
}

impl From<io::Error> for ClientError {
    fn from(e: io::Error) -> Self {
        match e.kind() {
            io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => ClientError::Timeout,
            io::ErrorKind::UnexpectedEof
            | io::ErrorKind::ConnectionReset
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::BrokenPipe => ClientError::Closed,
            _ => ClientError::Io(e),
        }
    }
}

/// A connection to an rtl_tcp server.
#[derive(Debug)]
pub struct Client {
    stream: TcpStream,
    header: Header,
}

impl Client {
    /// Connect to the first reachable address of `addr`, read and check the
    /// 12-byte header. `timeout` bounds the connect, the header read and
    /// every later read (see [`Client::set_read_timeout`]).
    pub fn connect(addr: impl ToSocketAddrs, timeout: Duration) -> Result<Client, ClientError> {
        let mut last = None;
        for a in addr.to_socket_addrs()? {
            match TcpStream::connect_timeout(&a, timeout) {
                Ok(s) => return Client::from_stream(s, timeout),
                Err(e) => last = Some(e),
            }
        }
        Err(last.map_or(
            ClientError::Io(io::Error::new(
                io::ErrorKind::InvalidInput,
                "address resolved to nothing",
            )),
            ClientError::from,
        ))
    }

    /// Use an already connected stream; reads the header.
    pub fn from_stream(mut stream: TcpStream, timeout: Duration) -> Result<Client, ClientError> {
        stream.set_read_timeout(Some(timeout))?;
        stream.set_nodelay(true)?;
        let mut head = [0u8; HEADER_LEN];
        let mut got = 0;
        while got < HEADER_LEN {
            match stream.read(&mut head[got..]) {
                Ok(0) if got == 0 => return Err(ClientError::Closed),
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e.into()),
            }
            // A wrong magic is reported as soon as it is seen.
            if got >= MAGIC.len() && head[..MAGIC.len()] != MAGIC {
                return Err(ClientError::BadHeader(HeaderError::BadMagic([
                    head[0], head[1], head[2], head[3],
                ])));
            }
        }
        let header = Header::parse(&head[..got]).map_err(ClientError::BadHeader)?;
        Ok(Client { stream, header })
    }

    /// The header the server sent.
    pub fn header(&self) -> Header {
        self.header
    }

    /// The server's address.
    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        self.stream.peer_addr()
    }

    /// Bound every later read; `None` waits forever.
    pub fn set_read_timeout(&mut self, timeout: Option<Duration>) -> Result<(), ClientError> {
        Ok(self.stream.set_read_timeout(timeout)?)
    }

    /// Send one command (5 bytes, no reply).
    pub fn send(&mut self, command: Command) -> Result<(), ClientError> {
        Ok(self.stream.write_all(&command.encode())?)
    }

    /// Read what has arrived (at least 1 byte) into `buf`.
    pub fn read(&mut self, buf: &mut [u8]) -> Result<usize, ClientError> {
        loop {
            match self.stream.read(buf) {
                Ok(0) if !buf.is_empty() => return Err(ClientError::Closed),
                Ok(n) => return Ok(n),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e.into()),
            }
        }
    }

    /// Fill all of `buf`; the read timeout applies to each socket read.
    pub fn read_exact(&mut self, buf: &mut [u8]) -> Result<(), ClientError> {
        let mut done = 0;
        while done < buf.len() {
            done += self.read(&mut buf[done..])?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod test {
    use super::*;
    use std::net::TcpListener;
    use std::thread;

    /// A one-shot peer that writes `bytes`, then holds the connection for
    /// `hold` before closing it.
    fn peer(bytes: &'static [u8], hold: Duration) -> SocketAddr {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap();
        thread::spawn(move || {
            let (mut s, _) = l.accept().unwrap();
            s.write_all(bytes).unwrap();
            thread::sleep(hold);
        });
        addr
    }

    #[test]
    fn test_header_and_stream() {
        let addr = peer(
            b"RTL0\x00\x00\x00\x06\x00\x00\x00\x1dIQIQ",
            Duration::from_millis(10),
        );
        let mut c = Client::connect(addr, Duration::from_secs(2)).unwrap();
        assert_eq!(c.header().tuner, super::super::protocol::TunerType::R828d);
        assert_eq!(c.header().gain_count, 29);
        let mut buf = [0u8; 4];
        c.read_exact(&mut buf).unwrap();
        assert_eq!(&buf, b"IQIQ");
        assert!(matches!(c.read(&mut buf), Err(ClientError::Closed)));
    }

    #[test]
    fn test_not_an_rtl_tcp_server() {
        let addr = peer(b"SSH-2.0-OpenSSH_9.2\r\n", Duration::from_millis(10));
        match Client::connect(addr, Duration::from_secs(2)) {
            Err(ClientError::BadHeader(HeaderError::BadMagic(m))) => assert_eq!(&m, b"SSH-"),
            other => panic!("{other:?}"),
        }
        // An HTTP server that sends a short answer and holds the line: the
        // magic is rejected without waiting for 12 bytes.
        let addr = peer(b"HTTP", Duration::from_secs(30));
        let t0 = std::time::Instant::now();
        assert!(matches!(
            Client::connect(addr, Duration::from_secs(20)),
            Err(ClientError::BadHeader(HeaderError::BadMagic(_)))
        ));
        // Rejected at once, not after the peer's 30 s or the 20 s timeout.
        assert!(t0.elapsed() < Duration::from_secs(15));
    }

    #[test]
    fn test_short_header_and_silence() {
        let addr = peer(b"RTL0\x00\x00", Duration::from_millis(10));
        assert!(matches!(
            Client::connect(addr, Duration::from_secs(2)),
            Err(ClientError::BadHeader(HeaderError::Truncated {
                got: 6,
                ..
            }))
        ));
        let addr = peer(b"", Duration::from_millis(10));
        assert!(matches!(
            Client::connect(addr, Duration::from_secs(2)),
            Err(ClientError::Closed)
        ));
        let addr = peer(b"", Duration::from_secs(2));
        assert!(matches!(
            Client::connect(addr, Duration::from_millis(100)),
            Err(ClientError::Timeout)
        ));
        // Timeout mid-stream, after a good header.
        let addr = peer(
            b"RTL0\x00\x00\x00\x05\x00\x00\x00\x1d",
            Duration::from_secs(2),
        );
        let mut c = Client::connect(addr, Duration::from_secs(1)).unwrap();
        c.set_read_timeout(Some(Duration::from_millis(50))).unwrap();
        assert!(matches!(c.read(&mut [0u8; 8]), Err(ClientError::Timeout)));
    }

    #[test]
    fn test_commands_on_the_wire() {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap();
        let h = thread::spawn(move || {
            let (mut s, _) = l.accept().unwrap();
            s.write_all(&Header::R820T.encode()).unwrap();
            let mut got = [0u8; 10];
            s.read_exact(&mut got).unwrap();
            got
        });
        let mut c = Client::connect(addr, Duration::from_secs(2)).unwrap();
        c.send(Command::SetSampleRate(2_400_000)).unwrap();
        c.send(Command::SetBiasTee(true)).unwrap();
        assert_eq!(
            h.join().unwrap(),
            [0x02, 0x00, 0x24, 0x9f, 0x00, 0x0e, 0, 0, 0, 1]
        );
    }
}
