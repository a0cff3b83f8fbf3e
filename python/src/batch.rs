//! The batch functions: a column of texts (an Arrow string array read in place, or a
//! list of `str`) through sanitize, strip or truncate on every core, with the GIL
//! released, into Arrow columns.
//!
//! The column is cut into segments of about equal rows; threads take segments in
//! turn and each writes its own buffers; the segments are then joined in order, so
//! the output is the same whatever the number of threads.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use airlock_core::{LiteralSet, Profile, ProseError, truncate_to_bytes};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString, PyTuple};

use crate::arrow::{self, ArrowColumn, Chunk, Column, Layout, Row};
use crate::{RejectionError, internal, profile_of};

/// What a batch does to each row.
#[derive(Clone, Copy)]
enum Op<'f> {
    Sanitize {
        profile: Profile,
        field: &'f str,
        max_bytes: usize,
    },
    Strip {
        profile: Profile,
    },
    Truncate {
        max_bytes: usize,
    },
}

/// The rows of a batch: Arrow chunks, or the `str`s of a list (`None`: a null).
enum Rows<'a> {
    Arrow(&'a [Chunk]),
    List(&'a [Option<String>]),
}

/// A contiguous run of rows: (chunk, first row, end row, the first row's index in
/// the whole column).
#[derive(Clone, Copy)]
struct Segment {
    chunk: usize,
    start: usize,
    end: usize,
    global: usize,
}

/// One segment's output.
///
/// The row costs that are not core's are kept to a push or two a row: `data` is
/// reserved once for the segment's input bytes, and its initialized length only
/// grows (`used` is where the rows end): core writes into bytes a longer row
/// zeroed before, so no row zeroes its room again, and a short result is not
/// truncated away. Reasons are kept for the rejected rows only.
#[derive(Default)]
struct Out {
    /// `data[..used]` holds the rows; `data[used..]` is room already zeroed.
    data: Vec<u8>,
    used: usize,
    /// End of each row's bytes in `data`.
    ends: Vec<usize>,
    valid: Vec<bool>,
    /// Sanitize: (row in the segment, its rejection message); the row is null.
    reasons: Vec<(usize, String)>,
    /// Truncate: whether cut, and the original length.
    truncated: Vec<bool>,
    bytes: Vec<i64>,
}

impl Out {
    /// An output for `rows` rows of about `input` bytes.
    fn with_capacity(op: Op<'_>, rows: usize, input: usize) -> Self {
        let (truncated, bytes) = match op {
            Op::Truncate { .. } => (Vec::with_capacity(rows), Vec::with_capacity(rows)),
            Op::Sanitize { .. } | Op::Strip { .. } => (Vec::new(), Vec::new()),
        };
        Out {
            // A little over the input: a redacted marker or a truncation note
            // lengthens a row.
            data: Vec::with_capacity(input.saturating_add(input / 8).saturating_add(256)),
            used: 0,
            ends: Vec::with_capacity(rows),
            valid: Vec::with_capacity(rows),
            reasons: Vec::new(),
            truncated,
            bytes,
        }
    }

    /// `need` writable bytes after the rows (zeroed only where never written).
    fn room(&mut self, need: usize) -> &mut [u8] {
        let want = self.used.saturating_add(need);
        if self.data.len() < want {
            self.data.resize(want, 0);
        }
        self.data.get_mut(self.used..want).unwrap_or_default()
    }

    /// Ends a row of `n` bytes written into [`Out::room`].
    fn wrote(&mut self, n: usize, valid: bool) {
        self.used = self.used.saturating_add(n);
        self.ends.push(self.used);
        self.valid.push(valid);
    }

    fn null(&mut self, op: Op<'_>) {
        self.wrote(0, false);
        if let Op::Truncate { .. } = op {
            self.truncated.push(false);
            self.bytes.push(0);
        }
    }

    fn text(&mut self, op: Op<'_>, text: &str) -> Result<(), String> {
        match op {
            Op::Sanitize {
                profile,
                field,
                max_bytes,
            } => {
                let room = self.room(profile.worst_case_len(text.len(), max_bytes));
                match profile.sanitize_prose_with(
                    text,
                    field,
                    max_bytes,
                    &LiteralSet::DEFAULT,
                    room,
                ) {
                    Ok(prose) => {
                        let n = prose.text.len();
                        self.wrote(n, true);
                    }
                    Err(ProseError::Rejected(r)) => {
                        self.reasons.push((self.ends.len(), r.to_string()));
                        self.wrote(0, false);
                    }
                    Err(ProseError::BufferTooSmall(_)) => {
                        return Err(String::from("buffer too small"));
                    }
                }
            }
            Op::Strip { profile } => {
                let room = self.room(text.len());
                let n = profile
                    .strip_into(text, room)
                    .map_err(|_| String::from("buffer too small"))?
                    .len();
                self.wrote(n, true);
            }
            Op::Truncate { max_bytes } => {
                let t = truncate_to_bytes(text, max_bytes);
                let kept = t.text.as_bytes();
                self.room(kept.len()).copy_from_slice(kept);
                self.wrote(kept.len(), true);
                self.truncated.push(t.truncated);
                self.bytes.push(i64::try_from(t.bytes).unwrap_or(i64::MAX));
            }
        }
        Ok(())
    }

    /// The rows' bytes (the zeroed room after them dropped).
    fn finish(mut self) -> Self {
        self.data.truncate(self.used);
        self
    }
}

/// Why a batch stopped: a row that is not UTF-8 or a malformed Arrow array.
struct Failure {
    row: usize,
    what: String,
}

fn run_segment(rows: &Rows<'_>, seg: Segment, op: Op<'_>) -> Result<Out, Failure> {
    let n = seg.end.saturating_sub(seg.start);
    let input = match rows {
        Rows::Arrow(chunks) => chunks
            .get(seg.chunk)
            .and_then(|c| c.span(seg.start, seg.end))
            .unwrap_or(0),
        Rows::List(list) => list
            .get(seg.start..seg.end)
            .unwrap_or_default()
            .iter()
            .map(|s| s.as_ref().map_or(0, String::len))
            .sum(),
    };
    let mut out = Out::with_capacity(op, n, input);
    for i in seg.start..seg.end {
        let row = seg.global.saturating_add(i.saturating_sub(seg.start));
        let fail = |what: String| Failure { row, what };
        let inline: [u8; 12];
        let bytes: Option<&[u8]> = match rows {
            Rows::Arrow(chunks) => {
                let chunk = chunks
                    .get(seg.chunk)
                    .ok_or_else(|| fail(String::from("no such chunk")))?;
                match chunk.row(i).map_err(fail)? {
                    Row::Null => None,
                    Row::Text(b) => Some(b),
                    Row::Inline(b, n) => {
                        inline = b;
                        Some(inline.get(..n).unwrap_or_default())
                    }
                }
            }
            Rows::List(list) => list.get(i).and_then(|s| s.as_deref().map(str::as_bytes)),
        };
        match bytes {
            None => out.null(op),
            Some(b) => {
                let text = std::str::from_utf8(b).map_err(|e| Failure {
                    row,
                    what: format!(
                        "is not UTF-8 (an invalid sequence at byte {})",
                        e.valid_up_to()
                    ),
                })?;
                out.text(op, text).map_err(|what| Failure { row, what })?;
            }
        }
    }
    Ok(out.finish())
}

/// Cuts `lens` (rows per chunk) into segments of at most `per` rows.
fn segments(lens: &[usize], per: usize) -> Vec<Segment> {
    let mut segs = Vec::new();
    let mut global = 0usize;
    for (chunk, &len) in lens.iter().enumerate() {
        let mut start = 0;
        while start < len {
            let end = start.saturating_add(per).min(len);
            segs.push(Segment {
                chunk,
                start,
                end,
                global: global.saturating_add(start),
            });
            start = end;
        }
        global = global.saturating_add(len);
    }
    segs
}

fn run(rows: &Rows<'_>, lens: &[usize], op: Op<'_>, threads: usize) -> Result<Vec<Out>, Failure> {
    let total: usize = lens.iter().sum();
    let threads = threads.max(1).min(total.div_ceil(256).max(1));
    // Four segments a thread evens out rows of unequal length; one thread takes
    // each chunk whole, so a one-chunk batch's output needs no join.
    let per = if threads == 1 {
        usize::MAX
    } else {
        total.div_ceil(threads.saturating_mul(4)).max(1)
    };
    let segs = segments(lens, per);
    if threads == 1 {
        return segs.iter().map(|&s| run_segment(rows, s, op)).collect();
    }
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Result<Out, Failure>>>> =
        Mutex::new((0..segs.len()).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                loop {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&seg) = segs.get(k) else { break };
                    let r = run_segment(rows, seg, op);
                    if let Ok(mut all) = results.lock()
                        && let Some(slot) = all.get_mut(k)
                    {
                        *slot = Some(r);
                    }
                }
            });
        }
    });
    let all = results.into_inner().map_err(|_| Failure {
        row: 0,
        what: String::from("a worker thread failed"),
    })?;
    all.into_iter()
        .map(|r| {
            r.unwrap_or(Err(Failure {
                row: 0,
                what: String::from("a segment was not run"),
            }))
        })
        .collect()
}

/// A validity bitmap (empty when every row is valid) and the null count.
fn validity(valid: impl Iterator<Item = bool>, len: usize) -> (Vec<u8>, usize) {
    let mut bits = vec![0u8; len.div_ceil(8)];
    let mut nulls = 0usize;
    for (i, v) in valid.enumerate() {
        if v {
            if let Some(b) = bits.get_mut(i / 8) {
                *b |= 1 << (i % 8);
            }
        } else {
            nulls = nulls.saturating_add(1);
        }
    }
    if nulls == 0 {
        bits.clear();
    }
    (bits, nulls)
}

/// The reason column: each rejected row's message, null elsewhere (`reasons` in row
/// order).
fn reason_column(reasons: &[(usize, String)], rows: usize) -> Column {
    let mut data = Vec::with_capacity(reasons.iter().map(|(_, m)| m.len()).sum());
    let mut ends = Vec::with_capacity(rows);
    let mut valid = vec![false; rows];
    let mut next = reasons.iter().peekable();
    for (i, slot) in valid.iter_mut().enumerate() {
        if let Some((_, msg)) = next.next_if(|(r, _)| *r == i) {
            data.extend_from_slice(msg.as_bytes());
            *slot = true;
        }
        ends.push(data.len());
    }
    offsets_column(data, &ends, &valid, false)
}

fn offsets_column(data: Vec<u8>, ends: &[usize], valid: &[bool], large: bool) -> Column {
    let len = ends.len();
    let large = large || data.len() > i32::MAX as usize;
    let offsets = if large {
        let mut o = Vec::with_capacity(len.saturating_add(1).saturating_mul(8));
        o.extend_from_slice(&0i64.to_le_bytes());
        for &e in ends {
            o.extend_from_slice(&(e as i64).to_le_bytes());
        }
        o
    } else {
        let mut o = Vec::with_capacity(len.saturating_add(1).saturating_mul(4));
        o.extend_from_slice(&0i32.to_le_bytes());
        for &e in ends {
            o.extend_from_slice(&(e as i32).to_le_bytes());
        }
        o
    };
    let (bits, nulls) = validity(valid.iter().copied(), len);
    Column {
        format: if large { c"U" } else { c"u" },
        len,
        null_count: nulls,
        buffers: vec![bits, offsets, data],
    }
}

/// Joins the segments' outputs into the batch's columns: one segment's buffers are
/// taken as they are; several are copied into one, in order.
fn join(mut outs: Vec<Out>, large: bool) -> Joined {
    if outs.len() == 1
        && let Some(o) = outs.pop()
    {
        let text = offsets_column(o.data, &o.ends, &o.valid, large);
        return Joined {
            text,
            rows: o.ends.len(),
            reasons: o.reasons,
            truncated: o.truncated,
            bytes: o.bytes,
            valid: o.valid,
        };
    }
    let total_data: usize = outs.iter().map(|o| o.data.len()).sum();
    let rows: usize = outs.iter().map(|o| o.ends.len()).sum();
    let mut data = Vec::with_capacity(total_data);
    let mut ends = Vec::with_capacity(rows);
    let mut valid = Vec::with_capacity(rows);
    let mut reasons = Vec::new();
    let mut truncated = Vec::new();
    let mut bytes = Vec::new();
    for o in outs {
        let base = data.len();
        let first_row = ends.len();
        data.extend_from_slice(&o.data);
        ends.extend(o.ends.iter().map(|e| base.saturating_add(*e)));
        valid.extend_from_slice(&o.valid);
        reasons.extend(
            o.reasons
                .into_iter()
                .map(|(r, m)| (first_row.saturating_add(r), m)),
        );
        truncated.extend(o.truncated);
        bytes.extend(o.bytes);
    }
    let text = offsets_column(data, &ends, &valid, large);
    Joined {
        text,
        rows,
        reasons,
        truncated,
        bytes,
        valid,
    }
}

fn bool_column(values: &[bool], valid: &[bool]) -> Column {
    let len = values.len();
    let mut bits = vec![0u8; len.div_ceil(8)];
    for (i, &v) in values.iter().enumerate() {
        if v && let Some(b) = bits.get_mut(i / 8) {
            *b |= 1 << (i % 8);
        }
    }
    let (vbits, nulls) = validity(valid.iter().copied(), len);
    Column {
        format: c"b",
        len,
        null_count: nulls,
        buffers: vec![vbits, bits],
    }
}

fn int64_column(values: &[i64], valid: &[bool]) -> Column {
    let len = values.len();
    let data: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    let (vbits, nulls) = validity(valid.iter().copied(), len);
    Column {
        format: c"l",
        len,
        null_count: nulls,
        buffers: vec![vbits, data],
    }
}

fn threads_of(threads: Option<usize>) -> usize {
    threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// A batch's output columns: the text, its row count, the rejected rows (by index,
/// in order) with their messages, and per row whether cut, the original length and
/// whether valid (the last three for truncate).
struct Joined {
    text: Column,
    rows: usize,
    reasons: Vec<(usize, String)>,
    truncated: Vec<bool>,
    bytes: Vec<i64>,
    valid: Vec<bool>,
}

/// Runs `op` over `texts` (an Arrow array or stream, or a list of `str`/`None`).
fn batch(
    py: Python<'_>,
    texts: &Bound<'_, PyAny>,
    op: Op<'_>,
    threads: Option<usize>,
) -> PyResult<Joined> {
    let threads = threads_of(threads);
    let fail = |f: Failure| {
        pyo3::exceptions::PyValueError::new_err(format!(
            "airlock: row {} of the batch {}",
            f.row, f.what
        ))
    };
    let (outs, large) = if let Some(imported) = arrow::import(texts)? {
        let lens: Vec<usize> = imported.chunks.iter().map(Chunk::len).collect();
        let chunks = imported.chunks.as_slice();
        let large = imported.layout != Layout::String;
        let r = py.detach(|| run(&Rows::Arrow(chunks), &lens, op, threads));
        drop(imported);
        (r.map_err(fail)?, large)
    } else if let Ok(list) = texts.cast::<PyList>() {
        let mut rows = Vec::with_capacity(list.len());
        for (i, item) in list.iter().enumerate() {
            if item.is_none() {
                rows.push(None);
                continue;
            }
            let s = item.cast::<PyString>().map_err(|_| {
                PyTypeError::new_err(format!(
                    "airlock: row {i} of the batch is not a str or None"
                ))
            })?;
            let text = s.to_cow().map_err(|_| {
                pyo3::exceptions::PyValueError::new_err(format!(
                    "airlock: row {i} of the batch holds a lone surrogate (no UTF-8 form; call the one-shot function for it)"
                ))
            })?;
            rows.push(Some(text.into_owned()));
        }
        let lens = [rows.len()];
        let r = py.detach(|| run(&Rows::List(&rows), &lens, op, threads));
        (r.map_err(fail)?, false)
    } else {
        return Err(PyTypeError::new_err(
            "airlock: a batch takes a list of str or an Arrow string array (__arrow_c_array__ or __arrow_c_stream__)",
        ));
    };
    Ok(join(outs, large))
}

/// `sanitize_batch`: `(text, reason)` columns; `raise_on_reject` raises the first
/// rejected row's message instead.
#[pyfunction]
#[pyo3(signature = (texts, field, max_bytes, profile = "reference", raise_on_reject = false, threads = None))]
fn sanitize_batch<'py>(
    py: Python<'py>,
    texts: &Bound<'py, PyAny>,
    field: &str,
    max_bytes: usize,
    profile: &str,
    raise_on_reject: bool,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyTuple>> {
    let op = Op::Sanitize {
        profile: profile_of(profile)?,
        field,
        max_bytes,
    };
    let Joined {
        text,
        rows,
        reasons,
        ..
    } = batch(py, texts, op, threads)?;
    if raise_on_reject && let Some((row, msg)) = reasons.first() {
        let err = RejectionError::new_err(msg.clone());
        err.value(py).setattr("row", *row)?;
        return Err(err);
    }
    let reason = reason_column(&reasons, rows);
    PyTuple::new(
        py,
        [
            Bound::new(py, ArrowColumn::new(text, "text"))?.into_any(),
            Bound::new(py, ArrowColumn::new(reason, "reason"))?.into_any(),
        ],
    )
}

/// `strip_batch`: the stripped column.
#[pyfunction]
#[pyo3(signature = (texts, profile = "reference", threads = None))]
fn strip_batch<'py>(
    py: Python<'py>,
    texts: &Bound<'py, PyAny>,
    profile: &str,
    threads: Option<usize>,
) -> PyResult<Bound<'py, ArrowColumn>> {
    let op = Op::Strip {
        profile: profile_of(profile)?,
    };
    let Joined { text, .. } = batch(py, texts, op, threads)?;
    Bound::new(py, ArrowColumn::new(text, "text"))
}

/// `truncate_batch`: `(text, truncated, bytes)` columns.
#[pyfunction]
#[pyo3(signature = (texts, max_bytes, threads = None))]
fn truncate_batch<'py>(
    py: Python<'py>,
    texts: &Bound<'py, PyAny>,
    max_bytes: usize,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyTuple>> {
    let Joined {
        text,
        truncated,
        bytes,
        valid,
        ..
    } = batch(py, texts, Op::Truncate { max_bytes }, threads)?;
    if truncated.len() != valid.len() {
        return Err(internal("column lengths"));
    }
    PyTuple::new(
        py,
        [
            Bound::new(py, ArrowColumn::new(text, "text"))?.into_any(),
            Bound::new(
                py,
                ArrowColumn::new(bool_column(&truncated, &valid), "truncated"),
            )?
            .into_any(),
            Bound::new(py, ArrowColumn::new(int64_column(&bytes, &valid), "bytes"))?.into_any(),
        ],
    )
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<ArrowColumn>()?;
    m.add_function(wrap_pyfunction!(sanitize_batch, m)?)?;
    m.add_function(wrap_pyfunction!(strip_batch, m)?)?;
    m.add_function(wrap_pyfunction!(truncate_batch, m)?)?;
    Ok(())
}
