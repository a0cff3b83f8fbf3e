//! Links every public function of airlock-core into a `no_std` static library with
//! its own panic handler and no global allocator. If core ever links `std` (two panic
//! handlers) or `alloc` (no allocator), this crate stops building.
#![no_std]

use core::fmt::{self, Write};
use core::hint::black_box;

use airlock_core::frontmatter;
use airlock_core::prose::{ProseStream, stream_buffer_len};
use airlock_core::utf8::{Utf8Stream, validate};
use airlock_core::{
    LiteralSet, Shape, StripStream, check_machine_token, check_no_control, check_no_forgery,
    check_safe_description, check_safe_glob, fence_token, find_forgery, is_control,
    is_dangerous_invisible, is_extended_pictographic, is_orphan_selector, sanitize_prose,
    strip_into, strip_invisibles, truncate_to_bytes, worst_case_len,
};

#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    loop {}
}

/// Counts formatted bytes without storing them.
struct Sink(usize);

impl Write for Sink {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0 = self.0.wrapping_add(s.len());
        Ok(())
    }
}

/// Exercises the whole public surface on caller-provided bytes.
///
/// # Safety
/// `ptr` must point to `len` readable bytes and `out` to `cap` writable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn airlock_nostd_check(
    ptr: *const u8,
    len: usize,
    out: *mut u8,
    cap: usize,
) -> usize {
    // SAFETY: the caller guarantees both regions.
    let (input, out) = unsafe {
        (
            core::slice::from_raw_parts(ptr, len),
            core::slice::from_raw_parts_mut(out, cap),
        )
    };
    let mut sink = Sink(0);
    let Ok(text) = validate(input) else {
        return 0;
    };
    let c = text.chars().next().unwrap_or('a');
    let _ = black_box((
        is_control(c),
        is_dangerous_invisible(c),
        is_extended_pictographic(c),
        is_orphan_selector(c, None),
    ));
    for run in strip_invisibles(text) {
        sink.0 = sink.0.wrapping_add(run.len());
    }
    let _ = write!(sink, "{}", truncate_to_bytes(text, 10).text);
    if let Err(e) = check_machine_token(text, "f", Shape::HostClass) {
        let _ = write!(sink, "{e}");
    }
    let _ = write!(sink, "{:?}", check_no_control(text, "f").err());
    let _ = write!(sink, "{:?}", check_safe_description(text).err());
    let _ = write!(sink, "{:?}", check_safe_glob(text).err());
    let _ = write!(
        sink,
        "{:?}",
        check_no_forgery(text, "f", &LiteralSet::DEFAULT).err()
    );
    let _ = write!(sink, "{:?}", find_forgery(text, &LiteralSet::DEFAULT));
    let _ = write!(sink, "{}", fence_token(input));
    match frontmatter::parse(text) {
        Ok(fm) => {
            for g in fm.globs().into_iter().flatten() {
                let _ = write!(sink, "{g}");
            }
            for (k, v) in fm.meta().iter() {
                let _ = write!(sink, "{}{v:?}", k.name());
            }
        }
        Err(e) => {
            let _ = write!(sink, "{e}");
        }
    }
    let _ = write!(
        sink,
        "{:?}",
        frontmatter::refusal_reason(text).map(|r| black_box(r))
    );
    let _ = write!(sink, "{}", worst_case_len(len, 100));
    let _ = write!(sink, "{:?}", strip_into(text, out).map(str::len));
    let _ = write!(
        sink,
        "{:?}",
        sanitize_prose(text, "f", 100, out).map(|p| p.text.len())
    );
    let mut strip = StripStream::new();
    let _ = strip.feed(input, |run| sink.0 = sink.0.wrapping_add(run.len()));
    let _ = strip.finish();
    let mut utf8 = Utf8Stream::new();
    let _ = utf8.feed(input, |piece| sink.0 = sink.0.wrapping_add(piece.len()));
    if cap >= stream_buffer_len(100)
        && let Ok(mut prose) = ProseStream::new("f", 100, &LiteralSet::DEFAULT, out)
    {
        let _ = prose.feed(input);
        let _ = write!(sink, "{:?}", prose.finish().map(|p| p.text.len()));
    }
    // The rest of the public surface: the less common entry points.
    let _ = black_box((
        airlock_core::class::is_variation_selector(c),
        airlock_core::class::is_stripped(c, Some(c)),
        airlock_core::strip::stripped_len(text),
        airlock_core::scan::first_attention(text),
        airlock_core::scan::backend_name(),
        airlock_core::frontmatter::js_number(text),
        airlock_core::frontmatter::MetaKey::from_name(text),
        Shape::from_pattern(text).map(|s| s.matches(text)),
        airlock_core::header::check_message_ids(text, true).map_err(|e| (e.kind(), e.offset())),
        utf8.position(),
    ));
    let custom = [text.get(..4).unwrap_or("x")];
    if let Ok(set) = LiteralSet::new(&custom) {
        let _ = write!(sink, "{:?}{:?}", set.literals(), find_forgery(text, &set));
        let r = airlock_core::sanitize_prose_with(text, "f", 50, &set, out);
        let _ = write!(sink, "{:?}", r.map(|p| p.truncated));
    }
    if let Err(r) = check_no_control(text, "f") {
        let _ = write!(
            sink,
            "{}{}{:?}{}",
            r.field(),
            r.value(),
            r.reason(),
            r.message_len()
        );
    }
    let _ = write!(
        sink,
        "{}",
        airlock_core::reject::JsonString::preview(text, 120)
    );
    if let Some(airlock_core::frontmatter::Refusal::AlwaysOn(problems)) =
        airlock_core::frontmatter::refusal_reason(text)
    {
        for p in problems.iter() {
            let _ = write!(sink, "{}", p.message());
        }
    }
    let _ = write!(
        sink,
        "{}{}{}{}",
        airlock_core::UNICODE_VERSION,
        airlock_core::VERSION,
        airlock_core::UNTRUSTED_BEGIN,
        airlock_core::UNTRUSTED_END
    );
    sink.0
}
