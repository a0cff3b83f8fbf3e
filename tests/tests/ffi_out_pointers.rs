//! An out pointer (`out_len`, `msg_len`, `err_offset`, a result) lying inside one of the
//! call's buffers is `INVALID_ARG`, and nothing is written: written through, it would
//! corrupt an output reported as complete, or change an input during the call.

use airlock::{
    airlock_check_no_control, airlock_fence_token, airlock_frontmatter_glob,
    airlock_frontmatter_read, airlock_frontmatter_summary, airlock_sanitize_prose, airlock_span,
    airlock_status, airlock_strip, airlock_utf8_validate,
};

/// Word-aligned scratch memory, so a `size_t` pointer into it is aligned; every pointer
/// below is derived from one base pointer, as a C caller's would be.
struct Arena {
    words: Box<[usize; 32]>,
}

const SENTINEL: usize = 0x5a5a_5a5a;

impl Arena {
    fn new() -> Self {
        Self {
            words: Box::new([SENTINEL; 32]),
        }
    }

    fn base(&mut self) -> *mut u8 {
        self.words.as_mut_ptr().cast()
    }

    /// A `size_t` pointer at word `index`.
    fn word(&mut self, index: usize) -> *mut usize {
        self.words.as_mut_ptr().wrapping_add(index)
    }

    fn untouched(&self) -> bool {
        self.words.iter().all(|w| *w == SENTINEL)
    }
}

const BYTES: usize = 32 * std::mem::size_of::<usize>();

#[test]
fn strip_refuses_out_len_inside_out() {
    let text = "a\u{200b}b";
    let mut arena = Arena::new();
    let base = arena.base();
    let out_len = arena.word(4);
    // SAFETY: every pointer lies in the live arena of BYTES bytes, or in `text`.
    let status = unsafe {
        airlock_strip(
            text.as_ptr(),
            text.len(),
            base,
            BYTES,
            out_len,
            std::ptr::null_mut(),
        )
    };
    assert_eq!(status, airlock_status::InvalidArg);
    assert!(arena.untouched());

    // The control: the same call with `out_len` outside the buffer succeeds.
    let mut arena = Arena::new();
    let base = arena.base();
    let mut len = 0usize;
    // SAFETY: as above; `len` is a live local.
    let status = unsafe {
        airlock_strip(
            text.as_ptr(),
            text.len(),
            base,
            BYTES,
            &mut len,
            std::ptr::null_mut(),
        )
    };
    assert_eq!(status, airlock_status::Ok);
    assert_eq!(len, 2);
}

#[test]
fn err_offset_and_msg_len_inside_a_buffer_are_refused() {
    let text = "ok";
    let field = "insight";
    let mut arena = Arena::new();
    let base = arena.base();
    let half = BYTES / 2;
    let msg = base.wrapping_add(half);
    let mut out_len = 0usize;
    // `err_offset` inside `out`, then `msg_len` inside `msg`.
    for (msg_len, err_offset) in [
        (std::ptr::null_mut(), arena.word(1)),
        (arena.word(20), std::ptr::null_mut()),
    ] {
        // SAFETY: `out` is the arena's first half, `msg` its second; the other pointers
        // are NULL, in the arena, or live locals.
        let status = unsafe {
            airlock_sanitize_prose(
                text.as_ptr(),
                text.len(),
                field.as_ptr(),
                field.len(),
                100,
                base,
                half,
                &mut out_len,
                msg,
                half,
                msg_len,
                err_offset,
            )
        };
        assert_eq!(status, airlock_status::InvalidArg);
        assert!(arena.untouched());
    }
    let value = "a\u{7}b";
    // SAFETY: `msg` is the whole arena and `msg_len` a word inside it.
    let status = unsafe {
        airlock_check_no_control(
            value.as_ptr(),
            value.len(),
            field.as_ptr(),
            field.len(),
            base,
            BYTES,
            arena.word(3),
            std::ptr::null_mut(),
        )
    };
    assert_eq!(status, airlock_status::InvalidArg);
    assert!(arena.untouched());
}

#[test]
fn out_pointers_inside_an_input_are_refused() {
    // The input is the arena itself: invalid UTF-8 would write `err_offset` into it.
    let mut arena = Arena::new();
    let base = arena.base();
    let err_offset = arena.word(0);
    // SAFETY: the input is the live arena; `err_offset` points into it.
    let status = unsafe { airlock_utf8_validate(base.cast_const(), BYTES, err_offset) };
    assert_eq!(status, airlock_status::InvalidArg);
    assert!(arena.untouched());

    let doc = b"---\nglobs: a\n---\n";
    let mut arena = Arena::new();
    let base = arena.base();
    // SAFETY: `doc` is copied into the arena below its first word; `start` points into
    // the copy.
    unsafe { std::ptr::copy_nonoverlapping(doc.as_ptr(), base.wrapping_add(64), doc.len()) };
    let mut len = 0usize;
    // SAFETY: the document lives in the arena; `start` is a word of that document.
    let status = unsafe {
        airlock_frontmatter_glob(
            base.wrapping_add(64).cast_const(),
            doc.len(),
            0,
            arena.word(8),
            &mut len,
            std::ptr::null_mut(),
        )
    };
    assert_eq!(status, airlock_status::InvalidArg);
}

#[test]
fn fence_refuses_out_len_inside_out() {
    let payload = "hello";
    let mut arena = Arena::new();
    let base = arena.base();
    // SAFETY: `out` is the arena; `out_len` its last word.
    let status = unsafe {
        airlock_fence_token(
            payload.as_ptr(),
            payload.len(),
            base,
            BYTES,
            arena.word(31),
            std::ptr::null_mut(),
        )
    };
    assert_eq!(status, airlock_status::InvalidArg);
    assert!(arena.untouched());
}

#[test]
fn frontmatter_read_refuses_pointers_and_arrays_that_share_memory() {
    let doc = "---\nglobs: [a, b]\n---\nbody\n";
    let mut summary = airlock_frontmatter_summary {
        has_globs: false,
        glob_count: 0,
        meta_count: 0,
    };
    let read = |globs: *mut airlock_span,
                globs_cap: usize,
                msg: *mut u8,
                msg_cap: usize,
                msg_len: *mut usize,
                summary: &mut airlock_frontmatter_summary| {
        // SAFETY: every pointer is NULL, a live local, or inside the live arena below.
        unsafe {
            airlock_frontmatter_read(
                doc.as_ptr(),
                doc.len(),
                summary,
                globs,
                globs_cap,
                std::ptr::null_mut(),
                0,
                msg,
                msg_cap,
                msg_len,
                std::ptr::null_mut(),
            )
        }
    };
    let mut arena = Arena::new();
    let base = arena.base();
    let globs = base.cast::<airlock_span>();
    // `msg_len` inside the globs array.
    let msg_len = arena.word(1);
    let status = read(globs, 4, std::ptr::null_mut(), 0, msg_len, &mut summary);
    assert_eq!(status, airlock_status::InvalidArg);
    assert!(arena.untouched());
    // The message buffer overlapping the globs array.
    let mut len = 0usize;
    let status = read(globs, 4, base.wrapping_add(16), 64, &mut len, &mut summary);
    assert_eq!(status, airlock_status::InvalidArg);
    assert!(arena.untouched());
    // The control: disjoint memory reads both globs.
    let status = read(globs, 4, std::ptr::null_mut(), 0, &mut len, &mut summary);
    assert_eq!(status, airlock_status::Ok);
    assert_eq!(summary.glob_count, 2);
}

#[test]
fn profile_exports_refuse_out_pointers_inside_their_buffers() {
    use airlock::{
        airlock_check_no_control_profile, airlock_profile, airlock_sanitize_prose_profile,
        airlock_strip_profile,
    };
    let text = "a\u{200b}b";
    let field = "insight";
    for profile in [airlock_profile::Reference, airlock_profile::Strict] {
        let profile = profile as u32;
        let mut arena = Arena::new();
        let base = arena.base();
        let out_len = arena.word(4);
        // SAFETY: every pointer lies in the live arena of BYTES bytes, or in `text`.
        let status = unsafe {
            airlock_strip_profile(
                profile,
                text.as_ptr(),
                text.len(),
                base,
                BYTES,
                out_len,
                std::ptr::null_mut(),
            )
        };
        assert_eq!(status, airlock_status::InvalidArg);
        assert!(arena.untouched());

        let mut arena = Arena::new();
        let base = arena.base();
        let msg = base.wrapping_add(BYTES / 2);
        let msg_len = arena.word(20);
        let mut out_len = 0usize;
        // SAFETY: `out` is the arena's first half, `msg` its second, `msg_len` inside it.
        let status = unsafe {
            airlock_sanitize_prose_profile(
                profile,
                text.as_ptr(),
                text.len(),
                field.as_ptr(),
                field.len(),
                100,
                base,
                BYTES / 2,
                &mut out_len,
                msg,
                BYTES / 2,
                msg_len,
                std::ptr::null_mut(),
            )
        };
        assert_eq!(status, airlock_status::InvalidArg);
        assert!(arena.untouched());

        let mut arena = Arena::new();
        let base = arena.base();
        let msg_len = arena.word(2);
        // SAFETY: `msg` is the arena, `msg_len` inside it.
        let status = unsafe {
            airlock_check_no_control_profile(
                profile,
                text.as_ptr(),
                text.len(),
                field.as_ptr(),
                field.len(),
                base,
                BYTES,
                msg_len,
                std::ptr::null_mut(),
            )
        };
        assert_eq!(status, airlock_status::InvalidArg);
        assert!(arena.untouched());
    }
}
