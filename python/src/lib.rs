//! `airlock._airlock`: the extension module behind the `airlock` Python package.
//!
//! Each function here is one of the Node drop-in's (`ffi/node/index.js`) over
//! airlock-core, with Python's types: `str` in, `str` out, a rejection raised as
//! `airlock.RejectionError` (a `ValueError`) carrying the reference's exact message.
//! The package's `__init__.py` adds keyword options and docstrings; the batch
//! functions live in `batch.rs`, the Arrow C data interface in `arrow.rs`.
//!
//! A `str` holding lone surrogates (from `surrogateescape`, or JSON's `"\ud83d"`) has
//! no UTF-8 form. It is read as the UTF-16 string JavaScript would hold: prose and
//! fence tokens go through libairlock's UTF-16 entry points, which carry the halves
//! through as the reference's UTF-16 walk does; the other functions see each half as
//! U+FFFD, as the Node binding's UTF-8 path does.

use std::borrow::Cow;
use std::fmt::Write as _;

use airlock_core::frontmatter::{self, Gate, MetaValue};
use airlock_core::{LiteralSet, Profile, ProseError, Rejection, Shape};
use pyo3::create_exception;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString};

mod arrow;
mod batch;
mod utf16;

create_exception!(
    _airlock,
    RejectionError,
    PyValueError,
    "A record airlock rejects: the message is the reference's, word for word."
);
create_exception!(
    _airlock,
    FrontmatterError,
    PyValueError,
    "A frontmatter block the reference's parser throws on (`Malformed frontmatter line: …`)."
);

/// The text of a `str`: borrowed UTF-8 when it has one, else `None` (lone surrogates).
fn utf8_of<'a>(s: &'a Bound<'_, PyString>) -> Option<Cow<'a, str>> {
    s.to_cow().ok()
}

/// A `str` argument, or the TypeError naming it.
fn string_arg<'py>(value: &Bound<'py, PyAny>, what: &str) -> PyResult<Bound<'py, PyString>> {
    value.cast::<PyString>().cloned().map_err(|_| {
        let kind = value
            .get_type()
            .name()
            .map(|n| n.to_string())
            .unwrap_or_else(|_| "?".to_owned());
        PyTypeError::new_err(format!("airlock: {what} must be a str, not {kind}"))
    })
}

/// The text of a `str` as UTF-8, each lone surrogate read as U+FFFD (the Node
/// binding's UTF-8 path).
fn lossy_of(s: &Bound<'_, PyString>) -> PyResult<String> {
    if let Some(text) = utf8_of(s) {
        return Ok(text.into_owned());
    }
    let units = utf16::units_of(s)?;
    Ok(String::from_utf16_lossy(&units))
}

pub(crate) fn profile_of(name: &str) -> PyResult<Profile> {
    Profile::from_name(name).ok_or_else(|| {
        PyValueError::new_err(format!(
            "airlock: unknown profile {name:?} (reference or strict)"
        ))
    })
}

fn rejected(r: &Rejection<'_>) -> PyErr {
    RejectionError::new_err(r.to_string())
}

pub(crate) fn internal(what: &str) -> PyErr {
    pyo3::exceptions::PyRuntimeError::new_err(format!(
        "airlock: unexpected {what} (a bug: please report it)"
    ))
}

/// `sanitizeProse` on UTF-8 text: the result or the rejection message.
pub(crate) fn sanitize_str(
    profile: Profile,
    text: &str,
    field: &str,
    max_bytes: usize,
    out: &mut Vec<u8>,
) -> Result<(), String> {
    let need = profile.worst_case_len(text.len(), max_bytes);
    out.clear();
    out.resize(need, 0);
    match profile.sanitize_prose_with(text, field, max_bytes, &LiteralSet::DEFAULT, out) {
        Ok(prose) => {
            let len = prose.text.len();
            out.truncate(len);
            Ok(())
        }
        Err(ProseError::Rejected(r)) => Err(r.to_string()),
        Err(ProseError::BufferTooSmall(_)) => Err(String::new()),
    }
}

fn prose_result(py: Python<'_>, r: Result<(), String>, out: &[u8]) -> PyResult<Py<PyString>> {
    match r {
        Ok(()) => {
            let s = std::str::from_utf8(out).map_err(|_| internal("non-UTF-8 output"))?;
            Ok(PyString::new(py, s).unbind())
        }
        Err(msg) if msg.is_empty() => Err(internal("buffer too small")),
        Err(msg) => Err(RejectionError::new_err(msg)),
    }
}

#[pyfunction]
#[pyo3(signature = (text, field, max_bytes, profile = "reference"))]
fn sanitize_prose(
    py: Python<'_>,
    text: &Bound<'_, PyAny>,
    field: &str,
    max_bytes: usize,
    profile: &str,
) -> PyResult<Py<PyString>> {
    let profile = profile_of(profile)?;
    let text = string_arg(text, "text")?;
    let mut out = Vec::new();
    match utf8_of(&text) {
        Some(s) => {
            let r = if s.len() > 1 << 16 {
                py.detach(|| sanitize_str(profile, &s, field, max_bytes, &mut out))
            } else {
                sanitize_str(profile, &s, field, max_bytes, &mut out)
            };
            prose_result(py, r, &out)
        }
        // Strict reads a lone surrogate as U+FFFD and leaves it so (README "strict
        // profile"): no UTF-16 walk.
        None if profile == Profile::Strict => {
            let lossy = lossy_of(&text)?;
            let r = sanitize_str(profile, &lossy, field, max_bytes, &mut out);
            prose_result(py, r, &out)
        }
        None => utf16::sanitize(py, &text, field, max_bytes),
    }
}

#[pyfunction]
#[pyo3(signature = (text, profile = "reference"))]
fn strip_dangerous_invisibles(
    py: Python<'_>,
    text: &Bound<'_, PyString>,
    profile: &str,
) -> PyResult<Py<PyString>> {
    let profile = profile_of(profile)?;
    let s = match utf8_of(text) {
        Some(s) => s,
        None => Cow::Owned(lossy_of(text)?),
    };
    let mut out = vec![0u8; s.len()];
    let stripped = profile
        .strip_into(&s, &mut out)
        .map_err(|_| internal("buffer too small"))?;
    Ok(PyString::new(py, stripped).unbind())
}

/// `truncateToBytes` on UTF-8 text: the prefix length in bytes, whether cut, the
/// original length.
#[pyfunction]
fn truncate_len(text: &str, max_bytes: usize) -> (usize, bool, usize) {
    let t = airlock_core::truncate_to_bytes(text, max_bytes);
    (t.text.len(), t.truncated, t.bytes)
}

#[pyfunction]
fn is_dangerous_invisible(cp: u32) -> bool {
    char::from_u32(cp).is_some_and(airlock_core::is_dangerous_invisible)
}

/// Whether the reference's strip drops `cp` after `prev` (`None`: at the start).
#[pyfunction]
#[pyo3(signature = (cp, prev = None))]
fn is_stripped(cp: u32, prev: Option<u32>) -> bool {
    let Some(c) = char::from_u32(cp) else {
        return false;
    };
    airlock_core::class::is_stripped(c, prev.and_then(char::from_u32))
}

#[pyfunction]
fn derive_fence_token(py: Python<'_>, payload: &Bound<'_, PyString>) -> PyResult<String> {
    match utf8_of(payload) {
        Some(s) => {
            let token = if s.len() > 1 << 16 {
                py.detach(|| airlock_core::fence_token(s.as_bytes()))
            } else {
                airlock_core::fence_token(s.as_bytes())
            };
            Ok(token.as_str().to_owned())
        }
        None => utf16::fence(py, payload),
    }
}

/// `assertMachineToken` for one of the four shapes, named by its pattern source.
#[pyfunction]
fn check_machine_token(value: &Bound<'_, PyString>, field: &str, source: &str) -> PyResult<()> {
    let shape = Shape::from_pattern(source)
        .ok_or_else(|| PyValueError::new_err(format!("airlock: no shape has pattern {source}")))?;
    let v = lossy_of(value)?;
    airlock_core::check_machine_token(&v, field, shape)
        .map(|_| ())
        .map_err(|r| rejected(&r))
}

#[pyfunction]
#[pyo3(signature = (value, field, profile = "reference"))]
fn check_no_control(value: &Bound<'_, PyString>, field: &str, profile: &str) -> PyResult<()> {
    let profile = profile_of(profile)?;
    let v = lossy_of(value)?;
    profile
        .check_no_control(&v, field)
        .map(|_| ())
        .map_err(|r| rejected(&r))
}

#[pyfunction]
#[pyo3(signature = (value, profile = "reference"))]
fn check_safe_description(value: &Bound<'_, PyString>, profile: &str) -> PyResult<()> {
    let profile = profile_of(profile)?;
    let v = lossy_of(value)?;
    profile
        .check_safe_description(&v)
        .map(|_| ())
        .map_err(|r| rejected(&r))
}

#[pyfunction]
#[pyo3(signature = (value, profile = "reference"))]
fn check_safe_glob(value: &Bound<'_, PyString>, profile: &str) -> PyResult<()> {
    let profile = profile_of(profile)?;
    let v = lossy_of(value)?;
    profile
        .check_safe_glob(&v)
        .map(|_| ())
        .map_err(|r| rejected(&r))
}

#[pyfunction]
fn check_no_forgery(text: &Bound<'_, PyString>, field: &str) -> PyResult<()> {
    let t = lossy_of(text)?;
    airlock_core::check_no_forgery(&t, field, &LiteralSet::DEFAULT).map_err(|r| rejected(&r))
}

fn gate_of(name: &str) -> PyResult<Gate> {
    Gate::from_name(name).ok_or_else(|| {
        PyValueError::new_err(format!(
            "airlock: unknown writer gate {name:?} (known: 3.20, 3.21)"
        ))
    })
}

/// A document as core reads it (UTF-8; a lone surrogate as U+FFFD) and, when it
/// has lone surrogates, the way back from a span of that text to the original's
/// code units, so values and quoted lines come back as the reference returns them.
struct Doc {
    text: String,
    /// The original UTF-16 units and, for each byte of `text` that starts a char,
    /// the index of its first unit (`unit_at[text.len()]` is the units' length).
    units: Option<(Vec<u16>, Vec<usize>)>,
}

impl Doc {
    fn new(s: &Bound<'_, PyString>) -> PyResult<Doc> {
        if let Some(text) = utf8_of(s) {
            return Ok(Doc {
                text: text.into_owned(),
                units: None,
            });
        }
        let units = utf16::units_of(s)?;
        let mut text = String::with_capacity(units.len().saturating_mul(3));
        let mut unit_at = Vec::with_capacity(units.len().saturating_mul(3).saturating_add(1));
        let mut at = 0usize;
        for item in char::decode_utf16(units.iter().copied()) {
            let (c, n) = match item {
                Ok(c) => (c, c.len_utf16()),
                Err(_) => ('\u{FFFD}', 1),
            };
            for _ in 0..c.len_utf8() {
                unit_at.push(at);
            }
            text.push(c);
            at = at.saturating_add(n);
        }
        unit_at.push(at);
        Ok(Doc {
            text,
            units: Some((units, unit_at)),
        })
    }

    /// The original units of `span`, a slice of `self.text`.
    fn units_of<'u>(&'u self, span: &str) -> Option<&'u [u16]> {
        let (units, unit_at) = self.units.as_ref()?;
        let start = (span.as_ptr() as usize).checked_sub(self.text.as_ptr() as usize)?;
        let end = start.checked_add(span.len())?;
        let (a, b) = (*unit_at.get(start)?, *unit_at.get(end)?);
        units.get(a..b)
    }

    /// `span` (a slice of `self.text`) as the original's `str`.
    fn original<'py>(&self, py: Python<'py>, span: &str) -> PyResult<Bound<'py, PyAny>> {
        match self.units_of(span) {
            None => Ok(PyString::new(py, span).into_any()),
            Some(units) => {
                let bytes: Vec<u8> = units.iter().flat_map(|u| u.to_le_bytes()).collect();
                PyBytes::new(py, &bytes).call_method1("decode", ("utf-16-le", "surrogatepass"))
            }
        }
    }

    /// The parse error's message, quoting the original line as `JSON.stringify` does
    /// (a lone surrogate as `\udxxx`).
    fn parse_message(&self, e: &frontmatter::ParseError<'_>) -> String {
        let built = e.to_string();
        let Some(units) = self.units_of(e.line()) else {
            return built;
        };
        let mut json = String::from("\"");
        for item in char::decode_utf16(units.iter().copied()) {
            match item {
                Ok('"') => json.push_str("\\\""),
                Ok('\\') => json.push_str("\\\\"),
                Ok('\u{8}') => json.push_str("\\b"),
                Ok('\u{c}') => json.push_str("\\f"),
                Ok('\n') => json.push_str("\\n"),
                Ok('\r') => json.push_str("\\r"),
                Ok('\t') => json.push_str("\\t"),
                Ok(c) if (c as u32) < 0x20 => {
                    let _ = write!(json, "\\u{:04x}", c as u32);
                }
                Ok(c) => json.push(c),
                Err(lone) => {
                    let _ = write!(json, "\\u{:04x}", lone.unpaired_surrogate());
                }
            }
        }
        json.push('"');
        format!("Malformed frontmatter line: {json}")
    }
}

/// `parseGlobsFrontmatter`: `{"globs": [...] | None, "meta": {...}}`.
#[pyfunction]
fn parse_globs_frontmatter<'py>(
    py: Python<'py>,
    document: &Bound<'py, PyString>,
) -> PyResult<Bound<'py, PyDict>> {
    let doc = Doc::new(document)?;
    let fm = frontmatter::parse(&doc.text)
        .map_err(|e| FrontmatterError::new_err(doc.parse_message(&e)))?;
    let result = PyDict::new(py);
    match fm.globs() {
        Some(globs) => {
            let list = PyList::empty(py);
            for g in globs {
                list.append(doc.original(py, g)?)?;
            }
            result.set_item("globs", list)?;
        }
        None => result.set_item("globs", py.None())?,
    }
    let meta = PyDict::new(py);
    for (key, value) in fm.meta().iter() {
        match value {
            MetaValue::Str(s) => meta.set_item(key.name(), doc.original(py, s)?)?,
            MetaValue::Bool(b) => meta.set_item(key.name(), b)?,
            MetaValue::Number(n) => meta.set_item(key.name(), n)?,
        }
    }
    result.set_item("meta", meta)?;
    Ok(result)
}

/// `frontmatterRefusalReason`: the refusal, or `None` when the document may be written.
#[pyfunction]
#[pyo3(signature = (document, gate = "3.20"))]
fn frontmatter_refusal_reason(
    document: &Bound<'_, PyString>,
    gate: &str,
) -> PyResult<Option<String>> {
    let gate = gate_of(gate)?;
    let doc = Doc::new(document)?;
    Ok(frontmatter::refusal_reason_with(&doc.text, gate).map(|r| {
        let mut s = String::new();
        let _ = write!(s, "{r}");
        // Only a parse error quotes the document: put a malformed line back.
        if let frontmatter::Refusal::Unparsable(e) = r {
            let restored = doc.parse_message(&e);
            s = s.replacen(&e.to_string(), &restored, 1);
        }
        s
    }))
}

/// UTF-16 code units of a `str` as little-endian bytes (test helper for the surrogate path).
#[pyfunction]
fn _utf16_units<'py>(
    py: Python<'py>,
    text: &Bound<'py, PyString>,
) -> PyResult<Bound<'py, PyBytes>> {
    let units = utf16::units_of(text)?;
    let bytes: Vec<u8> = units.iter().flat_map(|u| u.to_le_bytes()).collect();
    Ok(PyBytes::new(py, &bytes))
}

#[pymodule]
fn _airlock(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("RejectionError", py.get_type::<RejectionError>())?;
    m.add("FrontmatterError", py.get_type::<FrontmatterError>())?;
    m.add("VERSION", airlock_core::VERSION)?;
    m.add("UNICODE_VERSION", airlock_core::UNICODE_VERSION)?;
    m.add("UNTRUSTED_BEGIN", airlock_core::UNTRUSTED_BEGIN)?;
    m.add("UNTRUSTED_END", airlock_core::UNTRUSTED_END)?;
    m.add(
        "WRAPPER_FORGERY_LITERALS",
        airlock_core::WRAPPER_FORGERY_LITERALS.to_vec(),
    )?;
    m.add(
        "SHAPE_PATTERNS",
        Shape::ALL.iter().map(|s| s.pattern()).collect::<Vec<_>>(),
    )?;
    m.add(
        "DESCRIPTION_MAX_BYTES",
        airlock_core::token::DESCRIPTION_MAX_BYTES,
    )?;
    m.add_function(wrap_pyfunction!(sanitize_prose, m)?)?;
    m.add_function(wrap_pyfunction!(strip_dangerous_invisibles, m)?)?;
    m.add_function(wrap_pyfunction!(truncate_len, m)?)?;
    m.add_function(wrap_pyfunction!(is_dangerous_invisible, m)?)?;
    m.add_function(wrap_pyfunction!(is_stripped, m)?)?;
    m.add_function(wrap_pyfunction!(derive_fence_token, m)?)?;
    m.add_function(wrap_pyfunction!(check_machine_token, m)?)?;
    m.add_function(wrap_pyfunction!(check_no_control, m)?)?;
    m.add_function(wrap_pyfunction!(check_safe_description, m)?)?;
    m.add_function(wrap_pyfunction!(check_safe_glob, m)?)?;
    m.add_function(wrap_pyfunction!(check_no_forgery, m)?)?;
    m.add_function(wrap_pyfunction!(parse_globs_frontmatter, m)?)?;
    m.add_function(wrap_pyfunction!(frontmatter_refusal_reason, m)?)?;
    m.add_function(wrap_pyfunction!(_utf16_units, m)?)?;
    batch::register(m)?;
    Ok(())
}
