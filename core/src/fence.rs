//! Fence tokens derived from the payload they fence, provably absent from it (SPEC §6).

use core::fmt;

use sha2::{Digest, Sha256};

/// How many salted 8-hex tokens are tried before the full digest is used.
pub const FENCE_SALTS: u32 = 64;

/// A fence token: 8 lower-case hex characters, or 64 in the pathological fallback.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct FenceToken {
    hex: [u8; 64],
    len: usize,
}

impl FenceToken {
    /// The token as text.
    pub fn as_str(&self) -> &str {
        // Infallible: only ASCII hex digits are stored.
        core::str::from_utf8(self.as_bytes()).unwrap_or_default()
    }

    /// The token's bytes.
    pub fn as_bytes(&self) -> &[u8] {
        self.hex.get(..self.len).unwrap_or_default()
    }
}

impl fmt::Display for FenceToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for FenceToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "FenceToken({})", self.as_str())
    }
}

/// The lower-case hex SHA-256 of `"<salt>\n<payload>"`.
fn salted_digest(salt: u32, payload: &[u8]) -> [u8; 64] {
    let mut salt_text = [0u8; 10];
    let mut n = salt;
    let mut start = salt_text.len();
    loop {
        start = start.saturating_sub(1);
        if let Some(slot) = salt_text.get_mut(start) {
            // `n % 10` is a single digit.
            *slot = b'0'.saturating_add((n % 10) as u8);
        }
        n /= 10;
        if n == 0 {
            break;
        }
    }
    let digest = Sha256::new()
        .chain_update(salt_text.get(start..).unwrap_or_default())
        .chain_update(b"\n")
        .chain_update(payload)
        .finalize();
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut hex = [0u8; 64];
    for (pair, byte) in hex.chunks_exact_mut(2).zip(digest.iter()) {
        if let [hi, lo] = pair {
            *hi = HEX.get(usize::from(byte >> 4)).copied().unwrap_or(b'0');
            *lo = HEX.get(usize::from(byte & 0xF)).copied().unwrap_or(b'0');
        }
    }
    hex
}

/// `deriveFenceToken`: for salt 0, 1, …, 63, the first 8 hex characters of
/// SHA-256(`"<salt>\n<payload>"`) that do not occur in `payload`; if all 64 occur,
/// the full hex digest for salt 64.
pub fn fence_token(payload: &[u8]) -> FenceToken {
    for salt in 0..FENCE_SALTS {
        let hex = salted_digest(salt, payload);
        let token = hex.get(..8).unwrap_or_default();
        if memchr::memmem::find(payload, token).is_none() {
            return FenceToken { hex, len: 8 };
        }
    }
    FenceToken {
        hex: salted_digest(FENCE_SALTS, payload),
        len: 64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::string::String;

    #[test]
    fn known_answers() {
        for (payload, token) in [
            ("", "9a271f2a"),
            ("- a", "20faed25"),
            ("- b", "d391e7d4"),
            ("hello", "f6c5c364"),
            ("€", "f415df34"),
        ] {
            assert_eq!(fence_token(payload.as_bytes()).as_str(), token);
        }
    }

    #[test]
    fn retry_payloads() {
        let mut h = String::new();
        for i in 0..16384u32 {
            let mut buf = std::string::String::new();
            use std::fmt::Write;
            write!(buf, "{i}").unwrap();
            for b in Sha256::digest(buf.as_bytes()) {
                write!(h, "{b:02x}").unwrap();
            }
        }
        let second = std::format!("{h}\n374");
        assert_eq!(fence_token(second.as_bytes()).as_str(), "003dfc6c");
        let third = std::format!("{h}\n28142297");
        assert_eq!(fence_token(third.as_bytes()).as_str(), "5c4f6438");
    }
}
