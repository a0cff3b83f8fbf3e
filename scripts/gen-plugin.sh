#!/usr/bin/env bash
# The Claude Code plugin (plugins/airlock): its hooks/hooks.json is generated from what
# `airlock hook tool-output --print-config` prints, so that a change there (a new
# event, matcher or flag) reaches the plugin by re-running this script:
#   * every command's leading `airlock` becomes the plugin's own launcher,
#     "${CLAUDE_PLUGIN_ROOT}/bin/airlock" (bin/airlock: it execs the platform binary);
#   * every hook gets `onFailure: "block"`: a hook that cannot start, times out or
#     crashes blocks the call instead of letting the raw result through.
#
# Usage:
#   scripts/gen-plugin.sh                 write plugins/airlock/hooks/hooks.json
#   scripts/gen-plugin.sh --check         exit 1 if it differs from the generated one
#   scripts/gen-plugin.sh --pack REL OUT  write OUT/airlock-claude-plugin-<v>.tgz: the
#                                         plugin with the CLI of every platform built
#                                         in the release directory REL
#                                         (scripts/release.sh), the npm package the
#                                         marketplace's plugin source names
#
# AIRLOCK_BIN names the airlock binary to ask (default: a release build of the
# workspace's, built if missing).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
plugin="$root/plugins/airlock"
mode=write
case "${1:-}" in
  --check) mode=check ;;
  --pack) mode=pack; [ "$#" -eq 3 ] || { echo "usage: $0 --pack RELEASE_DIR OUT" >&2; exit 2; } ;;
  "") ;;
  *) echo "usage: $0 [--check | --pack RELEASE_DIR OUT]" >&2; exit 2 ;;
esac

bin="${AIRLOCK_BIN:-}"
if [ -z "$bin" ]; then
  (cd "$root" && cargo build --release --locked -p airlock-cli --quiet)
  bin="${CARGO_TARGET_DIR:-$root/target}/release/airlock"
fi

generated="$("$bin" hook tool-output --print-config | node -e '
let s = "";
process.stdin.on("data", (d) => (s += d)).on("end", () => {
  const config = JSON.parse(s);
  if (!config.hooks || Object.keys(config.hooks).length === 0) throw new Error("--print-config printed no hooks");
  for (const [event, groups] of Object.entries(config.hooks)) {
    for (const group of groups) {
      for (const hook of group.hooks) {
        if (hook.type !== "command" || !/^airlock( |$)/.test(hook.command)) {
          throw new Error(`${event}: a hook that is not an airlock command: ${JSON.stringify(hook)}`);
        }
        hook.command = hook.command.replace(/^airlock/, "\"${CLAUDE_PLUGIN_ROOT}/bin/airlock\"");
        hook.onFailure = "block";
      }
    }
  }
  process.stdout.write(`${JSON.stringify(config, null, 2)}\n`);
});
')"

case "$mode" in
  write)
    printf '%s\n' "$generated" >"$plugin/hooks/hooks.json"
    echo "gen-plugin: wrote plugins/airlock/hooks/hooks.json" >&2
    exit 0 ;;
  check)
    if ! diff -u "$plugin/hooks/hooks.json" <(printf '%s\n' "$generated") >&2; then
      echo "gen-plugin: plugins/airlock/hooks/hooks.json is stale; run scripts/gen-plugin.sh" >&2
      exit 1
    fi
    # The plugin's version follows the workspace's, and so does the marketplace's pin.
    version="$(sed -n 's/^version = "\(.*\)"$/\1/p' "$root/Cargo.toml" | head -1)"
    node -e '
      const [root, v] = process.argv.slice(1);
      const p = require(`${root}/plugins/airlock/.claude-plugin/plugin.json`);
      const m = require(`${root}/.claude-plugin/marketplace.json`).plugins.find((x) => x.name === "airlock");
      if (p.version !== v || m.version !== v || m.source.version !== v) {
        console.error(`gen-plugin: plugin ${p.version}, marketplace ${m.version}/${m.source.version}, workspace ${v}`);
        process.exit(1);
      }' "$root" "$version"
    echo "gen-plugin: plugins/airlock/hooks/hooks.json matches --print-config" >&2
    exit 0 ;;
esac

# --- pack --------------------------------------------------------------------------------
rel="$(cd "$2" && pwd)"
mkdir -p "$3"
out="$(cd "$3" && pwd)"
version="$(node -p "require('$plugin/.claude-plugin/plugin.json').version")"
stage="$(mktemp -d "${TMPDIR:-/tmp}/airlock-plugin.XXXXXX")"
trap 'rm -rf "$stage"' EXIT
pkg="$stage/package"
mkdir -p "$pkg/bin"
cp -R "$plugin/.claude-plugin" "$plugin/hooks" "$plugin/README.md" "$pkg/"
cp "$plugin/bin/airlock" "$pkg/bin/"
cp "$root/LICENSE-MIT" "$root/LICENSE-APACHE" "$pkg/"
printf '%s\n' "$generated" >"$pkg/hooks/hooks.json"
platforms=()
# Linux: the static musl CLI, which runs on glibc and musl systems alike.
# (A release directory with only the glibc build gives that one, for glibc systems.)
for pair in x86_64-unknown-linux-musl:linux-x64 x86_64-unknown-linux-gnu:linux-x64 \
  aarch64-unknown-linux-musl:linux-arm64 aarch64-unknown-linux-gnu:linux-arm64 \
  aarch64-apple-darwin:darwin-arm64 x86_64-apple-darwin:darwin-x64 x86_64-pc-windows-gnu:win32-x64; do
  triple="${pair%%:*}" dir="${pair#*:}" exe=""
  [[ "$triple" != *windows* ]] || exe=.exe
  src="$rel/airlock-$version-$triple/bin/airlock$exe"
  [ -f "$src" ] || continue
  [ ! -e "$pkg/bin/$dir" ] || continue
  mkdir -p "$pkg/bin/$dir"
  cp "$src" "$pkg/bin/$dir/"
  platforms+=("$dir")
done
[ "${#platforms[@]}" -gt 0 ] || { echo "gen-plugin: no CLI binary in $rel" >&2; exit 1; }
node -e '
  const [pkg, v, platforms] = process.argv.slice(1);
  const manifest = {
    name: "airlock-claude-plugin",
    version: v,
    description: `airlock Claude Code plugin with prebuilt airlock for ${platforms}`,
    license: "MIT OR Apache-2.0",
    files: [".claude-plugin/", "hooks/", "bin/", "README.md", "LICENSE-MIT", "LICENSE-APACHE"],
  };
  require("node:fs").writeFileSync(`${pkg}/package.json`, `${JSON.stringify(manifest, null, 2)}\n`);
' "$pkg" "$version" "${platforms[*]}"
find "$pkg" -exec touch -h -d "@${SOURCE_DATE_EPOCH:-$(git -C "$root" log -1 --format=%ct)}" {} +
rm -f "$out/airlock-claude-plugin-$version.tgz"
(cd "$pkg" && npm pack --silent --pack-destination "$out" >/dev/null)
echo "gen-plugin: wrote $out/airlock-claude-plugin-$version.tgz (${platforms[*]})" >&2
