//! `scan --fix` keeps what the file was: owner, group and mode less setuid/setgid;
//! refuses hard-linked files and symbolic links with a reason; names what it rewrote.
#![cfg(unix)]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    missing_docs
)]

mod common;

use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_airlock");

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn fix(dir: &Path, args: &[&str]) -> Run {
    let mut cmd = Command::new(BIN);
    cmd.arg("scan").arg("--fix").args(args).current_dir(dir);
    let out = common::output_of(&mut cmd, b"");
    Run {
        code: out.status.code().unwrap(),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

fn is_root() -> bool {
    fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0)
}

#[test]
fn fix_keeps_owner_and_group_and_drops_setuid_and_setgid() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("tool.sh");
    fs::write(&f, "echo a\u{200B}b\n").unwrap();
    let (uid, gid) = if is_root() {
        // As root the rewrite must not hand the file to root.
        std::os::unix::fs::chown(&f, Some(4242), Some(4343)).unwrap();
        (4242, 4343)
    } else {
        let m = fs::metadata(&f).unwrap();
        (m.uid(), m.gid())
    };
    fs::set_permissions(&f, fs::Permissions::from_mode(0o6755)).unwrap();
    let before = fs::metadata(&f).unwrap().mode() & 0o7777;
    let r = fix(dir.path(), &["tool.sh"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(fs::read_to_string(&f).unwrap(), "echo ab\n");
    let m = fs::metadata(&f).unwrap();
    assert_eq!((m.uid(), m.gid()), (uid, gid), "owner and group kept");
    assert_eq!(
        m.mode() & 0o7777,
        before & !0o6000,
        "setuid and setgid dropped"
    );
    assert_eq!(m.mode() & 0o777, 0o755, "permission bits kept");
}

#[test]
fn fix_refuses_hard_linked_files() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.txt");
    fs::write(&a, "x\u{202E}y").unwrap();
    fs::hard_link(&a, dir.path().join("b.txt")).unwrap();
    let ino = fs::metadata(&a).unwrap().ino();
    let r = fix(dir.path(), &["a.txt"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("a.txt: not fixed: hard-linked (2 names)"),
        "{}",
        r.stderr
    );
    assert!(r.stdout.contains("U+202E"), "findings are still reported");
    assert!(!r.stderr.contains("airlock: fixed"), "{}", r.stderr);
    // Both names still share the untouched file.
    assert_eq!(fs::read_to_string(&a).unwrap(), "x\u{202E}y");
    assert_eq!(fs::metadata(&a).unwrap().ino(), ino);
    assert_eq!(fs::metadata(dir.path().join("b.txt")).unwrap().ino(), ino);
}

#[test]
fn fix_refuses_a_symbolic_link_named_on_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("target.txt");
    fs::write(&target, "p\u{200B}q").unwrap();
    let link = dir.path().join("link.txt");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let r = fix(dir.path(), &["link.txt"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("link.txt: not fixed: a symbolic link"),
        "{}",
        r.stderr
    );
    assert_eq!(fs::read_to_string(&target).unwrap(), "p\u{200B}q");
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    // Walking a directory does not follow the link either.
    let r = fix(dir.path(), &["."]);
    assert_eq!((r.code, r.stdout.as_str()), (0, ""), "{}", r.stderr);
    assert_eq!(fs::read_to_string(&target).unwrap(), "p\u{200B}q");
}

#[test]
fn fix_names_every_file_it_rewrote_and_no_other() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("dirty1.txt"), "a\u{FEFF}").unwrap();
    fs::write(dir.path().join("dirty2.txt"), "b\u{1B}[0m").unwrap();
    fs::write(dir.path().join("clean.txt"), "c\n").unwrap();
    let r = fix(dir.path(), &["."]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let mut fixed: Vec<&str> = r.stderr.lines().collect();
    fixed.sort_unstable();
    assert_eq!(
        fixed,
        ["airlock: fixed dirty1.txt", "airlock: fixed dirty2.txt"]
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("dirty2.txt")).unwrap(),
        "b[0m"
    );
}
