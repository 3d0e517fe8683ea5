//! Register access over the USB seam: demod pages, USB/SYS blocks, I2C bridge.
//!
//! Every access is a vendor control transfer with bRequest 0 (facts §1.2):
//!
//! | access | wValue | wIndex |
//! |---|---|---|
//! | block read / write | address | `block << 8` / `| 0x10` |
//! | demod read / write | `addr << 8 | 0x20` | `page` / `0x10 | page` |
//! | I2C read / write | 8-bit address | `0x0600` / `0x0610` |
//!
//! Multi-byte values go on the wire MSB first. Every demod write is
//! followed by a 1-byte dummy read of page 0x0a, register 0x01.

use super::usb::{CONTROL_TIMEOUT, UsbError, UsbTransport, VENDOR_IN, VENDOR_OUT};
use super::{Error, Result};

/// Register blocks addressed through wIndex's high byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Block {
    /// USB controller registers (0x2000…).
    Usb = 1,
    /// System registers: DEMOD_CTL, GPIOs (0x3000…).
    Sys = 2,
}

/// USB_SYSCTL: DMA enable, full-packet mode.
pub const USB_SYSCTL: u16 = 0x2000;
/// USB_EPA_CTL: bulk endpoint stall / FIFO reset.
pub const USB_EPA_CTL: u16 = 0x2148;
/// USB_EPA_MAXPKT: bulk max packet size.
pub const USB_EPA_MAXPKT: u16 = 0x2158;
/// DEMOD_CTL: PLL/ADC enables and demod reset.
pub const DEMOD_CTL: u16 = 0x3000;
/// GPO: GPIO output values.
pub const GPO: u16 = 0x3001;
/// GPOE: GPIO output enables.
pub const GPOE: u16 = 0x3003;
/// GPD: GPIO directions (0 = output).
pub const GPD: u16 = 0x3004;
/// DEMOD_CTL_1.
pub const DEMOD_CTL_1: u16 = 0x300b;

/// Largest I2C data payload per control transfer (8-byte message incl. register).
pub const I2C_CHUNK: usize = 7;

/// The driver's register bus: owns the transport.
pub struct Regs {
    usb: Box<dyn UsbTransport>,
}

impl Regs {
    /// Take ownership of an (already claimed) transport.
    pub fn new(usb: Box<dyn UsbTransport>) -> Self {
        Regs { usb }
    }

    /// The transport underneath (bulk reads, reset, release).
    pub fn usb(&mut self) -> &mut dyn UsbTransport {
        &mut *self.usb
    }

    fn out(&mut self, value: u16, index: u16, data: &[u8], op: &'static str) -> Result<()> {
        let n = self
            .usb
            .control_out(VENDOR_OUT, 0, value, index, data, CONTROL_TIMEOUT)
            .map_err(Error::usb(op))?;
        if n != data.len() {
            return Err(Error::Usb {
                op,
                source: UsbError::Other("short control write"),
            });
        }
        Ok(())
    }

    fn inp(&mut self, value: u16, index: u16, buf: &mut [u8], op: &'static str) -> Result<()> {
        let n = self
            .usb
            .control_in(VENDOR_IN, 0, value, index, buf, CONTROL_TIMEOUT)
            .map_err(Error::usb(op))?;
        if n != buf.len() {
            return Err(Error::Usb {
                op,
                source: UsbError::Other("short control read"),
            });
        }
        Ok(())
    }

    /// Write `data` (wire order) to a USB/SYS block register.
    pub fn block_write(&mut self, block: Block, addr: u16, data: &[u8]) -> Result<()> {
        self.out(addr, ((block as u16) << 8) | 0x10, data, "register write")
    }

    /// Read `buf.len()` bytes from a USB/SYS block register.
    pub fn block_read(&mut self, block: Block, addr: u16, buf: &mut [u8]) -> Result<()> {
        self.inp(addr, (block as u16) << 8, buf, "register read")
    }

    /// Read one byte of a SYS register.
    pub fn sys_read(&mut self, addr: u16) -> Result<u8> {
        let mut b = [0];
        self.block_read(Block::Sys, addr, &mut b)?;
        Ok(b[0])
    }

    /// Write one byte to a SYS register.
    pub fn sys_write(&mut self, addr: u16, value: u8) -> Result<()> {
        self.block_write(Block::Sys, addr, &[value])
    }

    /// Write `data` (MSB first) to demod `page`:`addr`, then the dummy read.
    pub fn demod_write(&mut self, page: u8, addr: u8, data: &[u8]) -> Result<()> {
        self.out(
            (u16::from(addr) << 8) | 0x20,
            0x10 | u16::from(page),
            data,
            "demod write",
        )?;
        let mut dummy = [0];
        self.demod_read(0x0a, 0x01, &mut dummy)
    }

    /// Read `buf.len()` bytes from demod `page`:`addr`.
    pub fn demod_read(&mut self, page: u8, addr: u8, buf: &mut [u8]) -> Result<()> {
        self.inp(
            (u16::from(addr) << 8) | 0x20,
            u16::from(page),
            buf,
            "demod read",
        )
    }

    /// Turn the demod's I2C repeater (tuner bus) on or off: p1 0x01 ← 0x18 / 0x10.
    pub fn set_i2c_repeater(&mut self, on: bool) -> Result<()> {
        self.demod_write(1, 0x01, &[if on { 0x18 } else { 0x10 }])
    }

    /// I2C write of `[reg, data…]` to `addr`, split into messages of at most
    /// [`I2C_CHUNK`] data bytes, the register advancing with each chunk. An
    /// empty `data` sends the register byte alone (sets the read pointer).
    pub fn i2c_write(&mut self, addr: u8, reg: u8, data: &[u8]) -> Result<()> {
        let mut msg = [0u8; I2C_CHUNK + 1];
        if data.is_empty() {
            return self.out(u16::from(addr), 0x0610, &[reg], "I2C write");
        }
        for (i, chunk) in data.chunks(I2C_CHUNK).enumerate() {
            msg[0] = reg.wrapping_add((i * I2C_CHUNK) as u8);
            msg[1..=chunk.len()].copy_from_slice(chunk);
            self.out(u16::from(addr), 0x0610, &msg[..=chunk.len()], "I2C write")?;
        }
        Ok(())
    }

    /// I2C read of `buf.len()` bytes from `addr` (from the chip's pointer).
    pub fn i2c_read(&mut self, addr: u8, buf: &mut [u8]) -> Result<()> {
        self.inp(u16::from(addr), 0x0600, buf, "I2C read")
    }

    /// Read one register of a plain I2C chip: pointer write, then a 1-byte read.
    /// Used by the tuner probe; no bit reversal.
    pub fn i2c_read_reg(&mut self, addr: u8, reg: u8) -> Result<u8> {
        let written = self.i2c_write(addr, reg, &[]);
        let mut b = [0];
        let read = self.i2c_read(addr, &mut b);
        written.and(read).map(|()| b[0])
    }

    /// Make `gpio` (0–7) an output: GPD ← GPD & !bit, GPOE ← GPOE | bit.
    pub fn gpio_output(&mut self, gpio: u8) -> Result<()> {
        let bit = 1u8 << gpio;
        let d = self.sys_read(GPD)?;
        self.sys_write(GPD, d & !bit)?;
        let e = self.sys_read(GPOE)?;
        self.sys_write(GPOE, e | bit)
    }

    /// Drive output `gpio` (0–7) high or low: GPO read-modify-write.
    pub fn gpio_set(&mut self, gpio: u8, high: bool) -> Result<()> {
        let bit = 1u8 << gpio;
        let o = self.sys_read(GPO)?;
        self.sys_write(GPO, if high { o | bit } else { o & !bit })
    }
}

#[cfg(test)]
mod test {
    use super::*;
    use crate::rtl::fake::{FakeConfig, FakeRtl};
    use crate::rtl::trace::{SharedLog, TracingTransport};

    fn traced() -> (Regs, SharedLog) {
        let log = SharedLog::default();
        let fake = FakeRtl::new(FakeConfig::default());
        (
            Regs::new(Box::new(TracingTransport::new(fake, log.clone()))),
            log,
        )
    }

    #[test]
    fn test_wire_layout() {
        let (mut r, log) = traced();
        r.block_write(Block::Usb, USB_EPA_MAXPKT, &[0x00, 0x02])
            .unwrap();
        r.demod_write(1, 0x9f, &[0x03, 0x00]).unwrap();
        r.set_i2c_repeater(true).unwrap();
        r.i2c_write(
            0x34,
            0x05,
            &[0x83, 0x32, 0x75, 0xc0, 0x40, 0xd6, 0x6c, 0xf5, 0x63],
        )
        .unwrap();
        assert_eq!(r.i2c_read_reg(0x34, 0x00).unwrap(), 0x69);
        assert!(
            r.i2c_read_reg(0xc8, 0x02).is_err(),
            "no chip at 0xc8 must NAK"
        );
        r.gpio_output(0).unwrap();
        r.gpio_set(0, true).unwrap();
        assert_eq!(r.sys_read(GPO).unwrap(), 0x01);
        let want = "# open
W usb 2158 <- 00 02
W demod p1 9f <- 03 00
R demod pa 01 -> 00
W demod p1 01 <- 18
R demod pa 01 -> 00
W i2c 34 @05 <- 83 32 75 c0 40 d6 6c
W i2c 34 @0c <- f5 63
W i2c 34 @00 <-
R i2c 34 @00 -> 69
W i2c c8 NAK
R i2c c8 NAK
R sys 3004 -> 00
W sys 3004 <- 00
R sys 3003 -> 00
W sys 3003 <- 01
R sys 3001 -> 00
W sys 3001 <- 01
R sys 3001 -> 01
";
        assert_eq!(log.text(), want);
    }
}
