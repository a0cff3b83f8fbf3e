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
fn salted_hasher(salt: u32) -> Sha256 {
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
    Sha256::new()
        .chain_update(salt_text.get(start..).unwrap_or_default())
        .chain_update(b"\n")
}

/// SHA-256(`"<salt>\n<payload>"`) in lower-case hex.
fn salted_digest(salt: u32, payload: &[u8]) -> [u8; 64] {
    hex_of(salted_hasher(salt).chain_update(payload))
}

/// A hasher's digest in lower-case hex.
fn hex_of(hasher: Sha256) -> [u8; 64] {
    let digest = hasher.finalize();
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

/// [`fence_token`] over a payload too large to hold: `replay` hands the payload's
/// bytes, in chunks of any size, to the sink it is given, each time it is called
/// (once to hash it, once to look for the token, again per salt in the rare
/// retry); the first error it returns is returned. The same token as
/// [`fence_token`] of the whole payload.
pub fn fence_token_replayed<E>(
    mut replay: impl FnMut(&mut dyn FnMut(&[u8])) -> Result<(), E>,
) -> Result<FenceToken, E> {
    fn digest<E>(
        replay: &mut impl FnMut(&mut dyn FnMut(&[u8])) -> Result<(), E>,
        salt: u32,
    ) -> Result<[u8; 64], E> {
        let mut hasher = salted_hasher(salt);
        replay(&mut |chunk: &[u8]| hasher.update(chunk))?;
        Ok(hex_of(hasher))
    }
    for salt in 0..FENCE_SALTS {
        let hex = digest(&mut replay, salt)?;
        let token = hex.get(..8).unwrap_or_default();
        let finder = memchr::memmem::Finder::new(token);
        let mut seen = Window::default();
        let mut found = false;
        replay(&mut |chunk: &[u8]| {
            if !found {
                found = seen.straddles(&finder, chunk) || finder.find(chunk).is_some();
                seen.slide(chunk);
            }
        })?;
        if !found {
            return Ok(FenceToken { hex, len: 8 });
        }
    }
    Ok(FenceToken {
        hex: digest(&mut replay, FENCE_SALTS)?,
        len: 64,
    })
}

/// The last 7 bytes seen: an 8-byte token across a chunk boundary starts there.
#[derive(Default)]
struct Window {
    bytes: [u8; 14],
    len: usize,
}

impl Window {
    /// Whether the token occurs across the boundary before `chunk`.
    fn straddles(&self, finder: &memchr::memmem::Finder<'_>, chunk: &[u8]) -> bool {
        let mut joined = self.bytes;
        let head = chunk.get(..chunk.len().min(7)).unwrap_or_default();
        let end = self.len.saturating_add(head.len());
        if let Some(dst) = joined.get_mut(self.len..end) {
            dst.copy_from_slice(head);
        }
        finder.find(joined.get(..end).unwrap_or_default()).is_some()
    }

    /// Moves past `chunk`.
    fn slide(&mut self, chunk: &[u8]) {
        let mut joined = self.bytes;
        let head = chunk.get(..chunk.len().min(7)).unwrap_or_default();
        let end = self.len.saturating_add(head.len());
        if let Some(dst) = joined.get_mut(self.len..end) {
            dst.copy_from_slice(head);
        }
        let last: &[u8] = if chunk.len() >= 7 {
            chunk
                .get(chunk.len().saturating_sub(7)..)
                .unwrap_or_default()
        } else {
            joined.get(end.saturating_sub(7)..end).unwrap_or_default()
        };
        let mut bytes = [0u8; 14];
        if let Some(dst) = bytes.get_mut(..last.len()) {
            dst.copy_from_slice(last);
        }
        self.bytes = bytes;
        self.len = last.len();
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
        // Replayed in chunks of any size, tokens straddling every boundary.
        for payload in [second.as_bytes(), third.as_bytes(), b"", b"hello"] {
            for size in [1, 3, 7, 8, 9, 1000, 1 << 20] {
                let replayed = fence_token_replayed(|sink| {
                    payload.chunks(size).for_each(&mut *sink);
                    Ok::<(), ()>(())
                });
                assert_eq!(replayed, Ok(fence_token(payload)), "size {size}");
            }
        }
    }
}
