//! Rows of results as text, without `core::fmt` (whose float formatting
//! brings panic paths of its own): every value as the hexadecimal digits of
//! its bits, so the host reads back exactly what the target computed.

use crate::semihosting;

/// A line of text being built, written out by [`Line::flush`]; whatever
/// does not fit is dropped (and the host then fails to read the row).
pub struct Line {
    buf: [u8; 1024],
    len: usize,
}

impl Line {
    /// An empty line.
    pub const fn new() -> Self {
        Line {
            buf: [0; 1024],
            len: 0,
        }
    }

    /// Appends one byte.
    pub fn push(&mut self, byte: u8) {
        if let Some(slot) = self.buf.get_mut(self.len) {
            *slot = byte;
            self.len = self.len.wrapping_add(1);
        }
    }

    /// Appends text.
    pub fn text(&mut self, text: &str) {
        for &b in text.as_bytes() {
            self.push(b);
        }
    }

    /// Appends the `digits` low hexadecimal digits of `value`, most
    /// significant first.
    pub fn hex(&mut self, value: u64, digits: u32) {
        for i in (0..digits).rev() {
            let nibble = (value >> (4 * i)) & 0xF;
            self.push(b"0123456789abcdef"[nibble as usize]);
        }
    }

    /// Appends a number in decimal.
    pub fn decimal(&mut self, mut value: u32) {
        let mut digits = [0u8; 10];
        let mut n = 0;
        loop {
            if let Some(d) = digits.get_mut(n) {
                *d = b'0' + (value % 10) as u8;
            }
            n += 1;
            value /= 10;
            if value == 0 || n >= digits.len() {
                break;
            }
        }
        for &d in digits.iter().take(n).rev() {
            self.push(d);
        }
    }

    /// Writes the line and a newline to the host's console, and empties it.
    pub fn flush(&mut self) {
        self.push(b'\n');
        let end = self.len.min(self.buf.len() - 1);
        if let Some(slot) = self.buf.get_mut(end) {
            *slot = 0;
        }
        if let Some(text) = self.buf.get(..=end) {
            semihosting::write(text);
        }
        self.len = 0;
    }
}
