//! Where step 2 puts what it keeps: the sink both of its walks write to, the
//! code-point walk ([`super::keep::Keeper`]) and the dense-run walk
//! ([`super::dense`]). Its own file so that neither walk imports the other for it.

/// Where step 2 puts its results.
pub(crate) trait KeepSink {
    /// Whether the sink wants [`KeepSink::dropped`] calls (the dense path skips
    /// them otherwise).
    const DROPS: bool = false;
    /// Whether what the sink gathers ([`KeepSink::room`]) goes where step 3's
    /// controls (C0 but TAB and LF, DEL, C1) are dropped anyway (sanitize's matcher):
    /// the dense path then leaves them out of the gathered bytes.
    const DROPS_CONTROLS: bool = false;
    /// Kept text, in order.
    fn text(&mut self, s: &str);
    /// A member of D was dropped at byte `at` of the input.
    fn dropped(&mut self, at: usize, c: char) {
        let _ = (at, c);
    }
    /// Space for at least `need` kept bytes that the dense path may write into
    /// directly (then reports them with [`KeepSink::gathered`]), or `None` to be
    /// handed the kept runs with [`KeepSink::text`]. Between dense members of D the
    /// runs are a byte each, and a hand-off per byte costs more than the byte.
    fn room(&mut self, need: usize) -> Option<&mut [u8]> {
        let _ = need;
        None
    }
    /// `n` kept bytes (whole code points) were written at the start of the space
    /// [`KeepSink::room`] gave.
    fn gathered(&mut self, n: usize) {
        let _ = n;
    }
}
