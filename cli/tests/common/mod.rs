//! What every end-to-end test of the binary needs: run it with bytes on stdin.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs, dead_code)]

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// The binary under test.
pub(crate) const BIN: &str = env!("CARGO_BIN_EXE_airlock");

/// Runs `cmd` with `stdin` piped in and stdout/stderr captured. The input is written
/// from a thread: the command may answer and exit before reading all of it (a guard
/// refusing over-long input), and a large input must not deadlock against its output.
pub(crate) fn output_of(cmd: &mut Command, stdin: &[u8]) -> Output {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut pipe = child.stdin.take().expect("stdin is piped");
    let input = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        // A closed pipe is the command's business, not the test's.
        let _ = pipe.write_all(&input);
    });
    let output = child.wait_with_output().expect("wait");
    writer.join().expect("stdin writer");
    output
}
