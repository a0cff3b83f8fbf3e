//! What a reader's mail client decodes before it shows a message, decoded
//! here too, so the scan reads the same text.
//!
//! * RFC 2047 encoded-words (`=?utf-8?B?…?=`, `=?iso-8859-1?Q?…?=`) in any
//!   string: a subject, a display name, any header-like field.
//! * MIME (RFC 2045/2046) in any string that starts with a header block
//!   holding `Content-Type` or `Content-Transfer-Encoding`: each part's body
//!   decoded from quoted-printable or base64, multiparts split at their
//!   boundary, headers decoded as above. Text parts (`text/*`, and a part
//!   with no type, which RFC 2045 makes `text/plain`) are the decoded text;
//!   any other encoded part cannot be read, so it makes the string
//!   unscannable.
//! * Base64 (or base64url) with white space anywhere in it, as Gmail's `raw`
//!   and attachments carry it.
//!
//! Charsets are decoded as a mail client decodes them: by the WHATWG
//! Encoding Standard's labels and decoders (`encoding_rs`, Firefox's and
//! Thunderbird's), so `iso-8859-1` and `us-ascii` are windows-1252 (what
//! every browser-based client shows for them), and the ISO-8859, windows-125x,
//! KOI8, Mac, GBK/GB18030, Big5, EUC-JP, ISO-2022-JP, Shift_JIS, EUC-KR and
//! UTF-16 families are read. A byte order mark decides, as it does there.
//! Text that is not valid in its charset, a label the standard does not know
//! (`utf-7`, a typo), the labels it maps to "replacement" (`iso-2022-kr`,
//! `hz-gb-2312`), and `utf-16` without a byte order mark (RFC 2781 makes it
//! big-endian, the standard little-endian: clients disagree) are unscannable
//! rather than guessed.

/// How deep multiparts may nest before the string is unscannable.
const MAX_NESTING: usize = 8;

/// What a string decodes to.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Decoded {
    /// The texts a reader's client shows, each with what it is
    /// (`decoded`, `MIME part 2`).
    pub(crate) texts: Vec<(String, String)>,
    /// Why some of it cannot be read, if it cannot.
    pub(crate) unscannable: Option<String>,
}

/// `text` with its RFC 2047 encoded-words decoded, or `None` if it has none.
/// An encoded-word in a charset this does not decode, or whose payload is
/// malformed, is an `Err` naming it.
pub(crate) fn encoded_words(text: &str) -> Result<Option<String>, String> {
    if !text.contains("=?") {
        return Ok(None);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut any = false;
    let mut after_word = false;
    while let Some(start) = rest.find("=?") {
        let between = rest.get(..start).unwrap_or_default();
        let from = rest.get(start..).unwrap_or_default();
        match encoded_word(from)? {
            Some((word, len)) => {
                // White space between two adjacent encoded-words is not
                // shown (RFC 2047 §6.2).
                if !(after_word && between.chars().all(char::is_whitespace)) {
                    out.push_str(between);
                }
                out.push_str(&word);
                after_word = true;
                any = true;
                rest = from.get(len..).unwrap_or_default();
            }
            None => {
                out.push_str(rest.get(..start.saturating_add(2)).unwrap_or_default());
                after_word = false;
                rest = from.get(2..).unwrap_or_default();
            }
        }
    }
    out.push_str(rest);
    Ok(any.then_some(out))
}

/// The encoded-word at the start of `s` (`=?charset?enc?payload?=`): its text
/// and its length in bytes, `None` when `s` does not start with one.
fn encoded_word(s: &str) -> Result<Option<(String, usize)>, String> {
    let Some(body) = s.strip_prefix("=?") else {
        return Ok(None);
    };
    let mut fields = body.splitn(3, '?');
    let (Some(charset), Some(encoding), Some(tail)) = (fields.next(), fields.next(), fields.next())
    else {
        return Ok(None);
    };
    let Some(end) = tail.find("?=") else {
        return Ok(None);
    };
    let payload = tail.get(..end).unwrap_or_default();
    if charset.is_empty()
        || charset.contains(char::is_whitespace)
        || payload.contains(char::is_whitespace)
    {
        return Ok(None);
    }
    // `=?` charset `?` encoding `?` payload `?=`
    let len = [2, charset.len(), 1, encoding.len(), 1, end, 2]
        .iter()
        .fold(0usize, |a, n| a.saturating_add(*n));
    let bytes = match encoding {
        "B" | "b" => base64(payload.as_bytes()).ok_or_else(|| {
            format!(
                "the encoded-word {:?} is not valid base64",
                cut(s.get(..len).unwrap_or(s))
            )
        })?,
        "Q" | "q" => quoted_printable(payload.as_bytes(), true),
        _ => return Ok(None),
    };
    // A language tag (RFC 2231: `utf-8*en`) does not change the charset.
    let charset = charset.split('*').next().unwrap_or_default();
    let text = in_charset(&bytes, charset).map_err(|why| {
        format!(
            "the encoded-word {:?} {why}",
            cut(s.get(..len).unwrap_or(s))
        )
    })?;
    Ok(Some((text, len)))
}

/// `bytes` as text in `charset`, as a mail client decodes them; `Err` says
/// why they cannot be read (after "the part …" or "the encoded-word …").
fn in_charset(bytes: &[u8], charset: &str) -> Result<String, String> {
    let label = charset.trim().trim_matches('"');
    let lower = label.to_ascii_lowercase();
    if matches!(lower.as_str(), "utf-8" | "utf8") {
        return String::from_utf8(bytes.to_vec())
            .map_err(|_| format!("is not valid UTF-8, its charset {charset:?}"));
    }
    if matches!(lower.as_str(), "us-ascii" | "ascii") {
        // RFC 2045's default; UTF-8 is what such mail holds in practice, and
        // windows-1252 what a client shows for any other byte.
        if let Ok(text) = std::str::from_utf8(bytes) {
            return Ok(text.to_owned());
        }
    }
    let unknown = || {
        format!(
            "is in charset {charset:?}, which mail clients do not decode (the gate does not guess)"
        )
    };
    let declared = encoding_rs::Encoding::for_label(label.as_bytes()).ok_or_else(unknown)?;
    if declared == encoding_rs::REPLACEMENT {
        return Err(unknown());
    }
    let (encoding, body) = match encoding_rs::Encoding::for_bom(bytes) {
        Some((sniffed, len)) => (sniffed, bytes.get(len..).unwrap_or_default()),
        None if lower == "utf-16" => {
            return Err(format!(
                "is in charset {charset:?} without a byte order mark, which clients read in different byte orders"
            ));
        }
        None => (declared, bytes),
    };
    encoding
        .decode_without_bom_handling_and_without_replacement(body)
        .map(std::borrow::Cow::into_owned)
        .ok_or_else(|| format!("is not valid {}, its charset {charset:?}", encoding.name()))
}

/// Base64 or base64url, padded or not, with white space anywhere (RFC 2045
/// lines, a pasted blob); `None` for any other byte or a bad length.
pub(crate) fn base64(input: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity((input.len() / 4).saturating_mul(3).saturating_add(3));
    let mut acc = 0u32;
    let mut bits = 0u32;
    let mut padding = 0usize;
    for &b in input {
        let v = match b {
            // Each arm's range bounds the subtraction and the sum below 64.
            b'A'..=b'Z' => b.wrapping_sub(b'A'),
            b'a'..=b'z' => b.wrapping_sub(b'a').wrapping_add(26),
            b'0'..=b'9' => b.wrapping_sub(b'0').wrapping_add(52),
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            b'=' => {
                padding = padding.saturating_add(1);
                continue;
            }
            b' ' | b'\t' | b'\r' | b'\n' => continue,
            _ => return None,
        };
        if padding > 0 {
            // Data after padding.
            return None;
        }
        acc = (acc << 6) | u32::from(v);
        bits = bits.saturating_add(6);
        if bits >= 8 {
            bits = bits.saturating_sub(8);
            out.push(u8::try_from((acc >> bits) & 0xFF).unwrap_or_default());
        }
    }
    // 6 leftover bits can only come from a length of 4n+1: not base64.
    (bits < 6 && padding <= 2).then_some(out)
}

/// Quoted-printable (RFC 2045 §6.7); `header` for an encoded-word's Q form,
/// where `_` is a space. A malformed `=` is kept as written, as clients do.
fn quoted_printable(input: &[u8], header: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(input.len());
    let mut i = 0usize;
    while let Some(&b) = input.get(i) {
        i = i.saturating_add(1);
        match b {
            b'_' if header => out.push(b' '),
            b'=' => {
                let rest = input.get(i..).unwrap_or_default();
                if let Some(skip) = soft_break(rest) {
                    i = i.saturating_add(skip);
                } else if let (Some(h), Some(l)) = (
                    rest.first().and_then(|c| char::from(*c).to_digit(16)),
                    rest.get(1).and_then(|c| char::from(*c).to_digit(16)),
                ) {
                    out.push(
                        u8::try_from(h.saturating_mul(16).saturating_add(l)).unwrap_or_default(),
                    );
                    i = i.saturating_add(2);
                } else {
                    out.push(b'=');
                }
            }
            _ => out.push(b),
        }
    }
    out
}

/// The length of a soft line break after `=`: trailing white space, then CRLF or LF.
fn soft_break(rest: &[u8]) -> Option<usize> {
    let blanks = rest
        .iter()
        .take_while(|b| matches!(b, b' ' | b'\t'))
        .count();
    match rest.get(blanks..)? {
        [b'\r', b'\n', ..] => Some(blanks.saturating_add(2)),
        [b'\n', ..] => Some(blanks.saturating_add(1)),
        _ => None,
    }
}

/// The headers and body of a MIME entity, when `text` starts with a header
/// block that names a MIME field; `None` otherwise (plain text stays plain).
fn split_entity(text: &str, any_field: bool) -> Option<(Vec<(String, String)>, &str)> {
    let (head, body) = match (text.find("\r\n\r\n"), text.find("\n\n")) {
        (Some(a), Some(b)) if b < a => (text.get(..b)?, text.get(b.saturating_add(2)..)?),
        (Some(a), _) => (text.get(..a)?, text.get(a.saturating_add(4)..)?),
        (None, Some(b)) => (text.get(..b)?, text.get(b.saturating_add(2)..)?),
        (None, None) => (text, ""),
    };
    let mut headers: Vec<(String, String)> = Vec::new();
    for line in head.lines() {
        if line.starts_with([' ', '\t']) {
            // A folded continuation of the field above.
            let last = headers.last_mut()?;
            last.1.push(' ');
            last.1.push_str(line.trim());
            continue;
        }
        let (name, value) = line.split_once(':')?;
        if name.is_empty() || !name.bytes().all(|b| b.is_ascii_graphic()) {
            return None;
        }
        headers.push((name.to_ascii_lowercase(), value.trim().to_owned()));
    }
    let mime = headers.iter().any(|(n, _)| {
        n == "content-type" || n == "content-transfer-encoding" || n == "mime-version"
    });
    (mime || (any_field && !headers.is_empty())).then_some((headers, body))
}

/// A parameter of a header value (`boundary`, `charset`), unquoted.
fn parameter(value: &str, name: &str) -> Option<String> {
    value.split(';').skip(1).find_map(|p| {
        let (k, v) = p.split_once('=')?;
        k.trim()
            .eq_ignore_ascii_case(name)
            .then(|| v.trim().trim_matches('"').to_owned())
    })
}

/// Decodes `text` as a MIME message or part, if it is one.
pub(crate) fn mime(text: &str) -> Option<Decoded> {
    split_entity(text, false)?;
    let mut decoded = Decoded::default();
    entity(text, "MIME", 0, &mut decoded);
    Some(decoded)
}

/// Decodes a base64 string (a Gmail `raw`, an attachment's data) that
/// declares `mime_type` (empty when nothing declares one; `message/rfc822`
/// for a `raw`): a message is decoded as [`mime`] (for `message/rfc822` its
/// header block need not name a MIME field: RFC 2045 makes such a body
/// `text/plain`); text of a text type is the text; anything else is
/// unscannable.
pub(crate) fn base64_body(text: &str, mime_type: &str) -> Decoded {
    let mut decoded = Decoded::default();
    let Some(bytes) = base64(text.as_bytes()) else {
        decoded.unscannable = Some("it is not valid base64".to_owned());
        return decoded;
    };
    let declared_text = mime_type.to_ascii_lowercase().starts_with("text/");
    let message = mime_type.eq_ignore_ascii_case("message/rfc822");
    match String::from_utf8(bytes) {
        Ok(s) if !declared_text && split_entity(&s, message).is_some() => {
            entity(&s, "decoded MIME", usize::from(message), &mut decoded);
        }
        Ok(s) if declared_text || message => decoded.texts.push((s, "decoded".to_owned())),
        _ => {
            decoded.unscannable = Some(if mime_type.is_empty() {
                "it is encoded and declares no text type".to_owned()
            } else {
                format!("it is encoded {mime_type:?}, not text")
            });
        }
    }
    decoded
}

/// One MIME entity: its header fields' encoded-words and its body, or its
/// parts. `depth` 0 is a part found in a string, which must name a MIME field
/// to be read as one; deeper (and a decoded `raw`) any header block counts.
fn entity(text: &str, what: &str, depth: usize, out: &mut Decoded) {
    if depth > MAX_NESTING {
        out.unscannable = Some(format!("its MIME parts nest deeper than {MAX_NESTING}"));
        return;
    }
    let Some((headers, body)) = split_entity(text, depth > 0) else {
        out.texts.push((text.to_owned(), what.to_owned()));
        return;
    };
    let field = |name: &str| {
        headers
            .iter()
            .find(|(n, _)| n == name)
            .map_or("", |(_, v)| v.as_str())
    };
    for (name, value) in &headers {
        match encoded_words(value) {
            Ok(Some(v)) => out.texts.push((v, format!("{what} header {name}"))),
            Ok(None) => {}
            Err(e) => out.unscannable = Some(e),
        }
    }
    let content_type = field("content-type");
    let media = content_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    if media.starts_with("multipart/") {
        let Some(boundary) = parameter(content_type, "boundary") else {
            out.unscannable = Some(format!("{what} is multipart without a boundary"));
            return;
        };
        let delimiter = format!("--{boundary}");
        let mut parts = body.split(delimiter.as_str());
        // The preamble before the first delimiter is not shown.
        parts.next();
        for (i, part) in parts.enumerate() {
            if part.starts_with("--") {
                break;
            }
            let part = part
                .trim_start_matches([' ', '\t'])
                .trim_start_matches("\r\n")
                .trim_start_matches('\n');
            let n = i.saturating_add(1);
            entity(
                part,
                &format!("{what} part {n}"),
                depth.saturating_add(1),
                out,
            );
        }
        return;
    }
    if media == "message/rfc822" {
        entity(body, what, depth.saturating_add(1), out);
        return;
    }
    let encoding = field("content-transfer-encoding").to_ascii_lowercase();
    let bytes = match encoding.as_str() {
        "base64" => match base64(body.as_bytes()) {
            Some(b) => b,
            None => {
                out.unscannable = Some(format!("{what} is not valid base64"));
                return;
            }
        },
        "quoted-printable" => quoted_printable(body.as_bytes(), false),
        _ => body.as_bytes().to_vec(),
    };
    let is_text = media.is_empty() || media.starts_with("text/");
    if !is_text {
        if matches!(encoding.as_str(), "base64" | "quoted-printable") {
            out.unscannable = Some(format!("{what} is encoded {media:?}, not text"));
        } else {
            out.texts.push((body.to_owned(), what.to_owned()));
        }
        return;
    }
    let charset = parameter(content_type, "charset").unwrap_or_else(|| "utf-8".to_owned());
    match in_charset(&bytes, &charset) {
        Ok(t) => out.texts.push((t, what.to_owned())),
        Err(why) => out.unscannable = Some(format!("{what} {why}")),
    }
}

/// The start of `s`, for a message.
fn cut(s: &str) -> String {
    s.chars().take(60).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encoded_words_decode() {
        assert_eq!(encoded_words("plain").unwrap(), None);
        assert_eq!(
            encoded_words("=?utf-8?B?c29ycnkgZm9yIHRoZSBkZWxheQ==?=")
                .unwrap()
                .as_deref(),
            Some("sorry for the delay")
        );
        assert_eq!(
            encoded_words("Re: =?ISO-8859-1?Q?Gr=FC=DFe_aus?= =?utf-8?q?_K=C3=B6ln?= ok")
                .unwrap()
                .as_deref(),
            Some("Re: Grüße aus Köln ok")
        );
        assert_eq!(
            encoded_words("=?utf-8?Q?a=E2=80=AEb?=").unwrap().as_deref(),
            Some("a\u{202E}b")
        );
        assert!(encoded_words("=?x-unknown?B?c29ycnk=?=").is_err());
        assert!(encoded_words("=?utf-7?B?c29ycnk=?=").is_err());
        assert_eq!(encoded_words("a =? b ?= c").unwrap(), None);
    }

    #[test]
    fn charsets_decode_as_mail_clients_decode_them() {
        // "Привет" in KOI8-R, "Grüße" in ISO-8859-15, "こんにちは" in
        // Shift_JIS and ISO-2022-JP, "€" where ISO-8859-1 is windows-1252.
        for (word, text) in [
            ("=?koi8-r?B?8NLJ18XU?=", "Привет"),
            ("=?iso-8859-15?Q?Gr=FC=DFe?=", "Grüße"),
            ("=?Shift_JIS?B?grGC8YLJgr+CzQ==?=", "こんにちは"),
            ("=?iso-2022-jp?B?GyRCJDMkcyRLJEEkTxsoQg==?=", "こんにちは"),
            ("=?iso-8859-1?Q?=80_5?=", "€ 5"),
            ("=?windows-1251?B?0e/g8ejh7g==?=", "Спасибо"),
            ("=?utf-16le?B?cwBvAHIAcgB5AA==?=", "sorry"),
            ("=?utf-16?B?/v8AcwBvAHIAcgB5?=", "sorry"),
        ] {
            assert_eq!(
                encoded_words(word).unwrap().as_deref(),
                Some(text),
                "{word}"
            );
        }
        // No byte order mark: big-endian by RFC 2781, little by WHATWG.
        assert!(encoded_words("=?utf-16?B?AHMAbwBy?=").is_err());
        // Not valid in its charset, or a label mapped to "replacement".
        assert!(
            encoded_words("=?shift_jis?B?gQ==?=")
                .unwrap_err()
                .contains("not valid Shift_JIS")
        );
        assert!(encoded_words("=?iso-2022-kr?B?c29ycnk=?=").is_err());
        let m = "Content-Type: text/plain; charset=\"windows-1252\"\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n=93sorry=94";
        assert_eq!(mime(m).unwrap().texts[0].0, "\u{201C}sorry\u{201D}");
        let m = "Content-Type: text/plain; charset=x-mac-unknown\r\n\r\nsorry";
        assert!(
            mime(m)
                .unwrap()
                .unscannable
                .unwrap()
                .contains("x-mac-unknown")
        );
    }

    #[test]
    fn base64_tolerates_white_space_and_refuses_garbage() {
        assert_eq!(base64(b"c29y\r\ncnk=").unwrap(), b"sorry");
        assert_eq!(base64(b" c2 9y cnk ").unwrap(), b"sorry");
        assert_eq!(base64(b"-_8").unwrap(), [0xFB, 0xFF]);
        assert!(base64(b"c29y*").is_none());
        assert!(base64(b"c").is_none());
    }

    #[test]
    fn mime_parts_decode_and_other_types_are_unscannable() {
        let m = "MIME-Version: 1.0\r\nSubject: =?utf-8?B?aGk=?=\r\nContent-Type: multipart/alternative; boundary=\"b1\"\r\n\r\npre\r\n--b1\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\nso=\r\nrry f=6Fr the delay\r\n--b1\r\nContent-Type: text/html\r\nContent-Transfer-Encoding: base64\r\n\r\nPGI+aGk8L2I+\r\n--b1\r\nContent-Type: application/pdf\r\nContent-Transfer-Encoding: base64\r\n\r\nJVBERi0=\r\n--b1--\r\n";
        let d = mime(m).unwrap();
        let texts: Vec<&str> = d.texts.iter().map(|(t, _)| t.as_str()).collect();
        assert_eq!(texts, ["hi", "sorry f\u{6F}r the delay\r\n", "<b>hi</b>"]);
        assert_eq!(d.texts[1].1, "MIME part 1");
        assert!(d.unscannable.unwrap().contains("application/pdf"));
        assert!(mime("Dear Ann,\n\nthe notes: yes").is_none());
    }

    #[test]
    fn base64_bodies_decode_by_their_declared_type() {
        let raw = "RnJvbTogYQ0KQ29udGVudC1UeXBlOiB0ZXh0L3BsYWluDQoNCnNvcnJ5";
        let d = base64_body(raw, "");
        assert_eq!(d.texts, [("sorry".to_owned(), "decoded MIME".to_owned())]);
        // "From: a\r\n\r\nsorry": a message with no MIME field is text/plain.
        let d = base64_body("RnJvbTogYQ0KDQpzb3JyeQ==", "message/rfc822");
        assert_eq!(d.texts, [("sorry".to_owned(), "decoded MIME".to_owned())]);
        let d = base64_body("c29y cnk=", "text/plain");
        assert_eq!(d.texts[0].0, "sorry");
        assert!(base64_body("c29ycnk=", "").unscannable.is_some());
        assert!(base64_body("c29ycnk=", "image/png").unscannable.is_some());
    }
}
