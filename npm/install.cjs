// postinstall of the npm package `airlock` (the esbuild way): puts the platform
// package's native binary in place of this package's `bin/airlock`, so that
// `npx airlock`, `npm i -g airlock` and node_modules/.bin/airlock exec the binary
// itself — no shell and no Node between a hook and airlock. Hooks run once per tool
// call, and the sh launcher costs about a millisecond of CPU per call.
//
// Fails safe: it swaps only a binary that answers `--version` with this package's
// version, checks the swapped file answers the same, and otherwise leaves (or puts
// back) the sh launcher, which finds the platform binary at run time. With install
// scripts off (`npm install --ignore-scripts`) the launcher is what runs. Nothing is
// downloaded. Windows keeps npm's own shim (a .cmd cannot be replaced by an .exe).
'use strict';

const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const here = __dirname;
const target = path.join(here, 'bin', 'airlock');
const { version } = require('./package.json');

// The platform packages that can run on this OS and CPU, the likelier first: on Linux
// the glibc build, then the static musl one (which runs on glibc systems too; an npm
// without `libc` support installs both).
function candidates() {
  const { platform, arch } = process;
  if (platform === 'linux' && (arch === 'x64' || arch === 'arm64')) {
    return [`airlock-linux-${arch}`, `airlock-linux-${arch}-musl`];
  }
  if (platform === 'darwin' && (arch === 'x64' || arch === 'arm64')) return [`airlock-darwin-${arch}`];
  return [];
}

// Whether `bin --version` prints this package's version (and exits 0).
function answers(bin) {
  try {
    const out = execFileSync(bin, ['--version'], { encoding: 'utf8', timeout: 10000, stdio: ['ignore', 'pipe', 'ignore'] });
    return out.trim().split(/\s+/).includes(version);
  } catch {
    return false;
  }
}

function resolveBinary(name) {
  try {
    return path.join(path.dirname(require.resolve(`${name}/package.json`, { paths: [here] })), 'bin', 'airlock');
  } catch {
    return null;
  }
}

function main() {
  if (process.platform === 'win32') return 'kept the launcher: Windows uses npm\'s shim';
  const launcher = fs.readFileSync(target);
  if (!launcher.subarray(0, 2).equals(Buffer.from('#!'))) return 'bin/airlock is already a binary';
  for (const name of candidates()) {
    const bin = resolveBinary(name);
    if (!bin || !answers(bin)) continue;
    // Link (or copy) beside the target, then rename over it: a reader of bin/airlock
    // sees the launcher or the binary, never half a file.
    const temp = `${target}.install-${process.pid}`;
    try {
      fs.rmSync(temp, { force: true });
      try {
        fs.linkSync(bin, temp);
      } catch {
        fs.copyFileSync(bin, temp);
      }
      fs.chmodSync(temp, 0o755);
      fs.renameSync(temp, target);
    } catch (e) {
      fs.rmSync(temp, { force: true });
      return `kept the launcher: could not place ${name}'s binary (${e.code ?? e.message})`;
    }
    if (answers(target)) return `bin/airlock is ${name}'s binary`;
    // Put the launcher back by rename too: writing into bin/airlock would write into
    // the platform package's binary, which it may be a hard link of.
    fs.writeFileSync(temp, launcher, { mode: 0o755 });
    fs.renameSync(temp, target);
    return `kept the launcher: ${name}'s binary did not run from bin/`;
  }
  return 'kept the launcher: no installed platform package answered --version';
}

try {
  const what = main();
  if (process.env.AIRLOCK_INSTALL_VERBOSE) console.error(`airlock postinstall: ${what}`);
} catch (e) {
  // Never fail the install: the launcher still works.
  if (process.env.AIRLOCK_INSTALL_VERBOSE) console.error(`airlock postinstall: kept the launcher (${e.message})`);
}
