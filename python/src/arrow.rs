//! The Arrow C data interface (<https://arrow.apache.org/docs/format/CDataInterface.html>)
//! and its PyCapsule protocol, written out here instead of pulling in arrow-rs: string
//! columns are read in place (`string`, `large_string`, `string_view`), and results
//! are handed over as buffers this module owns until the consumer releases them.
//!
//! Nothing is copied on the way in: a column's rows are slices of the producer's
//! buffers, alive while the capsules (held by `Imported`) are.
#![allow(unsafe_code)]

use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::ptr;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyTuple};

/// `struct ArrowSchema`.
#[repr(C)]
pub(crate) struct FfiSchema {
    format: *const c_char,
    name: *const c_char,
    metadata: *const c_char,
    flags: i64,
    n_children: i64,
    children: *mut *mut FfiSchema,
    dictionary: *mut FfiSchema,
    release: Option<unsafe extern "C" fn(*mut FfiSchema)>,
    private_data: *mut c_void,
}

/// `struct ArrowArray`.
#[repr(C)]
pub(crate) struct FfiArray {
    length: i64,
    null_count: i64,
    offset: i64,
    n_buffers: i64,
    n_children: i64,
    buffers: *mut *const c_void,
    children: *mut *mut FfiArray,
    dictionary: *mut FfiArray,
    release: Option<unsafe extern "C" fn(*mut FfiArray)>,
    private_data: *mut c_void,
}

/// `struct ArrowArrayStream`.
#[repr(C)]
struct FfiStream {
    get_schema: Option<unsafe extern "C" fn(*mut FfiStream, *mut FfiSchema) -> c_int>,
    get_next: Option<unsafe extern "C" fn(*mut FfiStream, *mut FfiArray) -> c_int>,
    get_last_error: Option<unsafe extern "C" fn(*mut FfiStream) -> *const c_char>,
    release: Option<unsafe extern "C" fn(*mut FfiStream)>,
    private_data: *mut c_void,
}

impl FfiSchema {
    const fn empty() -> Self {
        FfiSchema {
            format: ptr::null(),
            name: ptr::null(),
            metadata: ptr::null(),
            flags: 0,
            n_children: 0,
            children: ptr::null_mut(),
            dictionary: ptr::null_mut(),
            release: None,
            private_data: ptr::null_mut(),
        }
    }
}

impl FfiArray {
    const fn empty() -> Self {
        FfiArray {
            length: 0,
            null_count: 0,
            offset: 0,
            n_buffers: 0,
            n_children: 0,
            buffers: ptr::null_mut(),
            children: ptr::null_mut(),
            dictionary: ptr::null_mut(),
            release: None,
            private_data: ptr::null_mut(),
        }
    }
}

/// How a chunk lays its strings out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Layout {
    /// `u`: 32-bit offsets.
    String,
    /// `U`: 64-bit offsets.
    LargeString,
    /// `vu`: 16-byte views.
    View,
}

/// One chunk of a string column, borrowed from its producer.
pub(crate) struct Chunk {
    layout: Layout,
    len: usize,
    offset: usize,
    validity: *const u8,
    /// Offsets (`u`, `U`) or views (`vu`).
    index: *const u8,
    /// The data buffer (`u`, `U`) or the variadic data buffers (`vu`).
    data: Vec<*const u8>,
}

// SAFETY: a chunk only reads buffers the producer made immutable by exporting them;
// the capsules that own them outlive every thread that reads them (`Imported`).
unsafe impl Send for Chunk {}
// SAFETY: as above; nothing in a chunk is ever written.
unsafe impl Sync for Chunk {}

/// What a row read from a chunk is.
pub(crate) enum Row<'a> {
    Null,
    Text(&'a [u8]),
    /// A view's inline bytes (at most 12): `(bytes, length)`.
    Inline([u8; 12], usize),
}

impl Chunk {
    pub(crate) const fn len(&self) -> usize {
        self.len
    }

    fn is_null(&self, i: usize) -> bool {
        if self.validity.is_null() {
            return false;
        }
        let bit = self.offset.saturating_add(i);
        // SAFETY: the validity bitmap holds at least offset + length bits (C data
        // interface), and i < length.
        let byte = unsafe { *self.validity.add(bit / 8) };
        byte & (1u8 << (bit % 8)) == 0
    }

    /// The data bytes rows `start..end` span (`start <= end <= len`), to size an
    /// output buffer once; `None` for views (no single data range) or offsets out of
    /// order, which [`Chunk::row`] then reports.
    pub(crate) fn span(&self, start: usize, end: usize) -> Option<usize> {
        if start >= end || end > self.len {
            return Some(0);
        }
        let (a, b) = (
            self.offset.checked_add(start)?,
            self.offset.checked_add(end)?,
        );
        let (s, e) = match self.layout {
            // SAFETY: the offsets buffer holds offset + length + 1 entries, and
            // a < b <= offset + length.
            Layout::String => unsafe {
                let p = self.index.cast::<i32>();
                (
                    i64::from(p.add(a).read_unaligned()),
                    i64::from(p.add(b).read_unaligned()),
                )
            },
            // SAFETY: as above, 64-bit entries.
            Layout::LargeString => unsafe {
                let p = self.index.cast::<i64>();
                (p.add(a).read_unaligned(), p.add(b).read_unaligned())
            },
            Layout::View => return None,
        };
        usize::try_from(e.checked_sub(s)?).ok()
    }

    /// Row `i` (`i < len`). Offsets are checked for order and sign; the bytes are the
    /// caller's to validate as UTF-8.
    pub(crate) fn row(&self, i: usize) -> Result<Row<'_>, String> {
        if self.is_null(i) {
            return Ok(Row::Null);
        }
        let at = self.offset.saturating_add(i);
        let (start, end, buf) = match self.layout {
            Layout::String => {
                // SAFETY: the offsets buffer holds offset + length + 1 entries.
                let (a, b) = unsafe {
                    let p = self.index.cast::<i32>();
                    (
                        p.add(at).read_unaligned(),
                        p.add(at).add(1).read_unaligned(),
                    )
                };
                (i64::from(a), i64::from(b), self.data.first().copied())
            }
            Layout::LargeString => {
                // SAFETY: as above, 64-bit entries.
                let (a, b) = unsafe {
                    let p = self.index.cast::<i64>();
                    (
                        p.add(at).read_unaligned(),
                        p.add(at).add(1).read_unaligned(),
                    )
                };
                (a, b, self.data.first().copied())
            }
            Layout::View => {
                // SAFETY: the views buffer holds offset + length 16-byte views.
                let view: [u8; 16] = unsafe {
                    self.index
                        .add(at.saturating_mul(16))
                        .cast::<[u8; 16]>()
                        .read_unaligned()
                };
                let word = |k: usize| {
                    let mut w = [0u8; 4];
                    w.copy_from_slice(view.get(k..k.saturating_add(4)).unwrap_or(&[0; 4]));
                    i32::from_le_bytes(w)
                };
                let len = word(0);
                if len < 0 {
                    return Err(format!("a negative view length at row {i}"));
                }
                if len <= 12 {
                    let n = usize::try_from(len).unwrap_or(0);
                    let mut inline = [0u8; 12];
                    if let (Some(dst), Some(src)) =
                        (inline.get_mut(..n), view.get(4..4usize.saturating_add(n)))
                    {
                        dst.copy_from_slice(src);
                    }
                    return Ok(Row::Inline(inline, n));
                }
                let buffer = usize::try_from(word(8))
                    .map_err(|_| format!("a negative buffer index at row {i}"))?;
                let offset = i64::from(word(12));
                let data = self.data.get(buffer).copied().ok_or_else(|| {
                    format!("row {i} names data buffer {buffer}, of {}", self.data.len())
                })?;
                (offset, offset.saturating_add(i64::from(len)), Some(data))
            }
        };
        let (Ok(s), Ok(e)) = (usize::try_from(start), usize::try_from(end)) else {
            return Err(format!("a negative offset at row {i}"));
        };
        if e < s {
            return Err(format!("offsets out of order at row {i}"));
        }
        let Some(buf) = buf else {
            return Err(String::from("no data buffer"));
        };
        if s == e {
            return Ok(Row::Text(&[]));
        }
        // SAFETY: the producer's data buffer holds every byte its offsets name.
        Ok(Row::Text(unsafe {
            std::slice::from_raw_parts(buf.add(s), e.saturating_sub(s))
        }))
    }
}

/// A column imported through the PyCapsule interface: its chunks, and the capsules
/// (or the stream's arrays) that keep their buffers alive.
pub(crate) struct Imported {
    pub(crate) chunks: Vec<Chunk>,
    pub(crate) layout: Layout,
    _keep: Vec<Py<PyAny>>,
    arrays: Vec<FfiArray>,
    schema: Option<Box<FfiSchema>>,
}

impl Drop for Imported {
    fn drop(&mut self) {
        for a in &mut self.arrays {
            if let Some(release) = a.release {
                // SAFETY: a stream's array, ours to release once.
                unsafe { release(a) };
            }
        }
        if let Some(s) = &mut self.schema
            && let Some(release) = s.release
        {
            // SAFETY: the stream's schema, ours to release once.
            unsafe { release(&mut **s) };
        }
    }
}

fn layout_of(schema: &FfiSchema) -> PyResult<Layout> {
    if schema.format.is_null() {
        return Err(PyValueError::new_err(
            "airlock: an Arrow schema without a format",
        ));
    }
    // SAFETY: a schema's format is a NUL-terminated string.
    let format = unsafe { CStr::from_ptr(schema.format) };
    match format.to_bytes() {
        b"u" => Ok(Layout::String),
        b"U" => Ok(Layout::LargeString),
        b"vu" => Ok(Layout::View),
        other => Err(PyTypeError::new_err(format!(
            "airlock: a batch takes an Arrow string, large_string or string_view array, not format {:?}",
            String::from_utf8_lossy(other)
        ))),
    }
}

fn chunk_of(array: &FfiArray, layout: Layout) -> PyResult<Chunk> {
    let bad =
        |what: &str| PyValueError::new_err(format!("airlock: an Arrow string array with {what}"));
    let len = usize::try_from(array.length).map_err(|_| bad("a negative length"))?;
    let offset = usize::try_from(array.offset).map_err(|_| bad("a negative offset"))?;
    let n = usize::try_from(array.n_buffers).map_err(|_| bad("a negative buffer count"))?;
    // Validity, offsets and data; validity, views and the data buffers' sizes.
    if n < 3 || array.buffers.is_null() {
        return Err(bad("too few buffers"));
    }
    // SAFETY: `buffers` holds `n_buffers` pointers.
    let buffers = unsafe { std::slice::from_raw_parts(array.buffers, n) };
    let at = |k: usize| buffers.get(k).copied().unwrap_or(ptr::null()).cast::<u8>();
    let validity = if array.null_count == 0 {
        ptr::null()
    } else {
        at(0)
    };
    let data = match layout {
        Layout::String | Layout::LargeString => vec![at(2)],
        // The views' data buffers sit between the views and the last buffer (their sizes).
        Layout::View => (2..n.saturating_sub(1)).map(at).collect(),
    };
    if len > 0 && at(1).is_null() {
        return Err(bad("no offsets"));
    }
    Ok(Chunk {
        layout,
        len,
        offset,
        validity,
        index: at(1),
        data,
    })
}

fn capsule_pointer(obj: &Bound<'_, PyAny>, name: &CStr) -> PyResult<*mut c_void> {
    let capsule = obj.cast::<PyCapsule>()?;
    let p = capsule.pointer_checked(Some(name))?;
    Ok(p.as_ptr())
}

/// Imports `obj` (anything with `__arrow_c_array__` or `__arrow_c_stream__`).
pub(crate) fn import(obj: &Bound<'_, PyAny>) -> PyResult<Option<Imported>> {
    let py = obj.py();
    if obj.hasattr("__arrow_c_array__")? {
        let pair = obj.call_method0("__arrow_c_array__")?;
        let pair = pair.cast::<PyTuple>()?;
        let schema_capsule = pair.get_item(0)?;
        let array_capsule = pair.get_item(1)?;
        let schema = capsule_pointer(&schema_capsule, c"arrow_schema")?.cast::<FfiSchema>();
        let array = capsule_pointer(&array_capsule, c"arrow_array")?.cast::<FfiArray>();
        // SAFETY: the capsules hold a schema and an array, alive while we hold them.
        let (schema, array) = unsafe { (&*schema, &*array) };
        let layout = layout_of(schema)?;
        let chunk = chunk_of(array, layout)?;
        return Ok(Some(Imported {
            chunks: vec![chunk],
            layout,
            _keep: vec![schema_capsule.unbind(), array_capsule.unbind()],
            arrays: Vec::new(),
            schema: None,
        }));
    }
    if !obj.hasattr("__arrow_c_stream__")? {
        return Ok(None);
    }
    let capsule = obj.call_method0("__arrow_c_stream__")?;
    let stream = capsule_pointer(&capsule, c"arrow_array_stream")?.cast::<FfiStream>();
    // SAFETY: the capsule holds a stream, alive while we hold the capsule.
    let stream = unsafe { &mut *stream };
    let last_error = |stream: &mut FfiStream| -> String {
        match stream.get_last_error {
            // SAFETY: a stream's last error is NULL or a NUL-terminated string.
            Some(f) => unsafe {
                let p = f(stream);
                if p.is_null() {
                    String::from("no message")
                } else {
                    CStr::from_ptr(p).to_string_lossy().into_owned()
                }
            },
            None => String::from("no message"),
        }
    };
    let mut schema = Box::new(FfiSchema::empty());
    let get_schema = stream
        .get_schema
        .ok_or_else(|| PyValueError::new_err("airlock: an Arrow stream without get_schema"))?;
    // SAFETY: `schema` is a writable ArrowSchema.
    if unsafe { get_schema(stream, &mut *schema) } != 0 {
        return Err(PyValueError::new_err(format!(
            "airlock: the Arrow stream's schema: {}",
            last_error(stream)
        )));
    }
    let mut imported = Imported {
        chunks: Vec::new(),
        layout: Layout::String,
        _keep: vec![capsule.unbind()],
        arrays: Vec::new(),
        schema: None,
    };
    let layout = layout_of(&schema);
    imported.schema = Some(schema);
    imported.layout = layout?;
    let get_next = stream
        .get_next
        .ok_or_else(|| PyValueError::new_err("airlock: an Arrow stream without get_next"))?;
    loop {
        let mut array = FfiArray::empty();
        // SAFETY: `array` is a writable ArrowArray (the interface lets a consumer move
        // it afterwards: its release frees the same buffers from anywhere).
        if unsafe { get_next(stream, &mut array) } != 0 {
            return Err(PyValueError::new_err(format!(
                "airlock: the Arrow stream's next array: {}",
                last_error(stream)
            )));
        }
        if array.release.is_none() {
            break;
        }
        let chunk = chunk_of(&array, imported.layout);
        imported.arrays.push(array);
        imported.chunks.push(chunk?);
    }
    let _ = py;
    Ok(Some(imported))
}

// --- export ---------------------------------------------------------------------------

/// The buffers of one exported column; freed by the consumer's release.
struct Owned {
    _bufs: Vec<Vec<u8>>,
    ptrs: Vec<*const c_void>,
}

/// A column to export: an Arrow format and its buffers (validity first).
pub(crate) struct Column {
    pub(crate) format: &'static CStr,
    pub(crate) len: usize,
    pub(crate) null_count: usize,
    /// Validity (may be empty: no nulls), then the layout's buffers.
    pub(crate) buffers: Vec<Vec<u8>>,
}

unsafe extern "C" fn release_array(a: *mut FfiArray) {
    if a.is_null() {
        return;
    }
    // SAFETY: `a` is an array this module exported; its private data is an `Owned`
    // box, freed once (release is cleared after).
    unsafe {
        let a = &mut *a;
        if !a.private_data.is_null() {
            drop(Box::from_raw(a.private_data.cast::<Owned>()));
        }
        a.private_data = ptr::null_mut();
        a.release = None;
    }
}

unsafe extern "C" fn release_schema(s: *mut FfiSchema) {
    if s.is_null() {
        return;
    }
    // SAFETY: `s` is a schema this module exported; its private data is the name.
    unsafe {
        let s = &mut *s;
        if !s.private_data.is_null() {
            drop(CString::from_raw(s.private_data.cast::<c_char>()));
        }
        s.private_data = ptr::null_mut();
        s.release = None;
    }
}

/// A schema and an array, `Send` so a capsule may own them.
#[repr(transparent)]
struct SendSchema(FfiSchema);
// SAFETY: the pointers are to memory this module owns until release.
unsafe impl Send for SendSchema {}
#[repr(transparent)]
struct SendArray(FfiArray);
// SAFETY: as above.
unsafe impl Send for SendArray {}

/// An exported column, consumed once through `__arrow_c_array__`.
#[pyclass(module = "airlock._airlock", name = "ArrowColumn", unsendable)]
pub(crate) struct ArrowColumn {
    column: Option<Column>,
    name: String,
}

impl ArrowColumn {
    pub(crate) fn new(column: Column, name: &str) -> Self {
        ArrowColumn {
            column: Some(column),
            name: name.to_owned(),
        }
    }
}

#[pymethods]
impl ArrowColumn {
    /// The Arrow PyCapsule interface: `(schema, array)` capsules; the column can be
    /// consumed once.
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_array__<'py>(
        &mut self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let _ = requested_schema;
        let column = self.column.take().ok_or_else(|| {
            PyValueError::new_err("airlock: this Arrow column was already consumed")
        })?;
        let name = CString::new(self.name.clone())
            .map_err(|_| PyValueError::new_err("airlock: a column name with NUL"))?;
        let mut schema = FfiSchema::empty();
        schema.format = column.format.as_ptr();
        schema.flags = 2; // ARROW_FLAG_NULLABLE
        schema.name = name.as_ptr();
        schema.private_data = name.into_raw().cast::<c_void>();
        schema.release = Some(release_schema);

        let len = i64::try_from(column.len)
            .map_err(|_| PyValueError::new_err("airlock: column too long"))?;
        let null_count = i64::try_from(column.null_count).unwrap_or(i64::MAX);
        let bufs = column.buffers;
        let ptrs: Vec<*const c_void> = bufs
            .iter()
            .enumerate()
            .map(|(k, b)| {
                if k == 0 && b.is_empty() {
                    ptr::null()
                } else {
                    b.as_ptr().cast::<c_void>()
                }
            })
            .collect();
        let n_buffers = i64::try_from(ptrs.len()).unwrap_or(0);
        let mut owned = Box::new(Owned { _bufs: bufs, ptrs });
        let mut array = FfiArray::empty();
        array.length = len;
        array.null_count = null_count;
        array.n_buffers = n_buffers;
        array.buffers = owned.ptrs.as_mut_ptr();
        array.private_data = Box::into_raw(owned).cast::<c_void>();
        array.release = Some(release_array);

        let schema = PyCapsule::new_with_value_and_destructor(
            py,
            SendSchema(schema),
            c"arrow_schema",
            |mut s: SendSchema, _| {
                if let Some(r) = s.0.release {
                    // SAFETY: not moved to a consumer (it clears release when it is).
                    unsafe { r(&mut s.0) };
                }
            },
        )?;
        let array = PyCapsule::new_with_value_and_destructor(
            py,
            SendArray(array),
            c"arrow_array",
            |mut a: SendArray, _| {
                if let Some(r) = a.0.release {
                    // SAFETY: as for the schema.
                    unsafe { r(&mut a.0) };
                }
            },
        )?;
        PyTuple::new(py, [schema.into_any(), array.into_any()])
    }

    fn __len__(&self) -> usize {
        self.column.as_ref().map_or(0, |c| c.len)
    }
}
