// Writes manifest.json for a release directory (scripts/release.sh): per target, the
// names every channel uses for that platform and each file's size and SHA-256.
// Usage: node manifest.mjs OUT VERSION SOURCE_DATE_EPOCH
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const [out, version, epoch] = process.argv.slice(2);

// target → its platform names: npm's os/cpu/libc, Go's GOOS/GOARCH, a wheel's tag.
export const PLATFORMS = {
  'x86_64-unknown-linux-gnu': { os: 'linux', cpu: 'x64', libc: 'glibc', goos: 'linux', goarch: 'amd64', wheel: 'manylinux_2_17_x86_64' },
  'x86_64-unknown-linux-musl': { os: 'linux', cpu: 'x64', libc: 'musl', goos: 'linux', goarch: 'amd64', wheel: 'musllinux_1_2_x86_64' },
  'aarch64-unknown-linux-gnu': { os: 'linux', cpu: 'arm64', libc: 'glibc', goos: 'linux', goarch: 'arm64', wheel: 'manylinux_2_17_aarch64' },
  'aarch64-unknown-linux-musl': { os: 'linux', cpu: 'arm64', libc: 'musl', goos: 'linux', goarch: 'arm64', wheel: 'musllinux_1_2_aarch64' },
  'aarch64-apple-darwin': { os: 'darwin', cpu: 'arm64', libc: null, goos: 'darwin', goarch: 'arm64', wheel: 'macosx_11_0_arm64' },
  'x86_64-apple-darwin': { os: 'darwin', cpu: 'x64', libc: null, goos: 'darwin', goarch: 'amd64', wheel: 'macosx_10_12_x86_64' },
  'x86_64-pc-windows-gnu': { os: 'win32', cpu: 'x64', libc: null, goos: 'windows', goarch: 'amd64', wheel: 'win_amd64' },
};

/** The npm platform suffix: linux-x64, linux-x64-musl, darwin-arm64, win32-x64. */
export function npmSuffix(p) {
  return `${p.os}-${p.cpu}${p.libc === 'musl' ? '-musl' : ''}`;
}

function walk(dir, prefix = '') {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name), `${prefix}${e.name}/`) : [`${prefix}${e.name}`]));
}

function describe(path) {
  const bytes = readFileSync(path);
  return { size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop())) {
  const targets = {};
  for (const [triple, p] of Object.entries(PLATFORMS)) {
    const name = `airlock-${version}-${triple}`;
    let files;
    try {
      files = walk(join(out, name));
    } catch {
      continue; // not built in this OUT
    }
    const exe = p.os === 'win32' ? '.exe' : '';
    const shared = p.os === 'win32' ? 'lib/airlock.dll' : p.os === 'darwin' ? 'lib/libairlock.dylib' : 'lib/libairlock.so';
    targets[triple] = {
      dir: name,
      archive: { name: `${name}.tar.gz`, ...describe(join(out, `${name}.tar.gz`)) },
      npm: { suffix: npmSuffix(p), os: p.os, cpu: p.cpu, libc: p.libc },
      go: { goos: p.goos, goarch: p.goarch },
      wheel: { platform: p.wheel },
      cli: `bin/airlock${exe}`,
      shared,
      static: 'lib/libairlock.a',
      header: 'include/airlock.h',
      files: Object.fromEntries(files.map((f) => [f, describe(join(out, name, f))])),
    };
  }
  if (Object.keys(targets).length === 0) throw new Error(`no target directory in ${out}`);
  const manifest = { name: 'airlock', version, source_date_epoch: Number(epoch), targets };
  process.stdout.write(`${JSON.stringify(manifest, null, 2)}\n`);
}
