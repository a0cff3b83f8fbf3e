//! The send-gate doctor's test harness, shared by `send_gate_tools.rs` (stdio servers)
//! and `send_gate_doctor_http.rs` (servers reached by URL): a temporary home, the example
//! configuration, and Claude Code settings exactly as `--print-config` prints them.
#![allow(clippy::unwrap_used, clippy::panic, dead_code)]

use std::path::PathBuf;
use std::process::Command;

use serde_json::{Value, json};

use crate::common;

const EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/send-gate.example.json");

pub(crate) struct Doctor {
    dir: tempfile::TempDir,
}

pub(crate) struct Out {
    pub(crate) code: i32,
    pub(crate) stdout: String,
}

impl Doctor {
    /// The example configuration, Claude Code settings exactly as `--print-config` prints
    /// them, and an empty home.
    pub(crate) fn new() -> Self {
        let d = Self {
            dir: tempfile::tempdir().unwrap(),
        };
        std::fs::copy(EXAMPLE, d.path("send-gate.json")).unwrap();
        std::fs::create_dir_all(d.home()).unwrap();
        std::fs::create_dir_all(d.project()).unwrap();
        let printed = d.run_bare(&["hook", "send-gate", "--print-config"]);
        assert_eq!(printed.code, 0);
        std::fs::write(d.path("settings.json"), printed.stdout).unwrap();
        d
    }
    pub(crate) fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
    pub(crate) fn home(&self) -> PathBuf {
        self.path("home")
    }
    pub(crate) fn project(&self) -> PathBuf {
        std::fs::canonicalize(self.dir.path())
            .unwrap()
            .join("project")
    }
    fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(common::BIN);
        cmd.args(args)
            .current_dir(self.project())
            .env("AIRLOCK_SEND_GATE_CONFIG", self.path("send-gate.json"))
            .env("AIRLOCK_SEND_GATE_STATE", self.path("state"))
            .env(
                "AIRLOCK_SEND_GATE_CLAUDE_SETTINGS",
                self.path("settings.json"),
            )
            .env("HOME", self.home())
            .env("CODEX_HOME", self.path("no-codex"))
            .env_remove("CLAUDE_CONFIG_DIR");
        cmd
    }
    pub(crate) fn run_bare(&self, args: &[&str]) -> Out {
        let out = common::output_of(&mut self.command(args), b"");
        Out {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        }
    }
    pub(crate) fn doctor_env(&self, env: &[(&str, &str)]) -> Out {
        let mut cmd = self.command(&["guard", "doctor"]);
        for (k, v) in env {
            cmd.env(k, v);
        }
        let out = common::output_of(&mut cmd, b"");
        Out {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        }
    }
    pub(crate) fn doctor(&self) -> Out {
        self.doctor_env(&[])
    }
    /// `~/.claude.json` with these user-scope servers.
    pub(crate) fn user_servers(&self, servers: Value) {
        self.claude_json(json!({ "mcpServers": servers }));
    }
    pub(crate) fn claude_json(&self, value: Value) {
        std::fs::write(self.home().join(".claude.json"), value.to_string()).unwrap();
    }
}

pub(crate) fn line_of<'a>(stdout: &'a str, needle: &str) -> &'a str {
    stdout
        .lines()
        .find(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no line with {needle:?} in:\n{stdout}"))
}
