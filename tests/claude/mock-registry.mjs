// A minimal npm registry on 127.0.0.1 (an ephemeral port) serving local tarballs: the
// packument (`GET /NAME`) and the tarball (`GET /NAME/-/NAME-VERSION.tgz`), with sha1
// and sha512 integrity as the public registry gives them. For the plugin e2e: the
// client installs the marketplace's npm plugin source from here, through npm itself.
// Usage: node mock-registry.mjs PORT_FILE LOG_FILE TARBALL...
import { createHash } from 'node:crypto';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { basename } from 'node:path';

const [portFile, logFile, ...tarballs] = process.argv.slice(2);
const packages = new Map();
for (const path of tarballs) {
  const m = /^(.+)-(\d+\.\d+\.\d+)\.tgz$/.exec(basename(path));
  if (!m) throw new Error(`not NAME-VERSION.tgz: ${path}`);
  const [, name, version] = m;
  const bytes = readFileSync(path);
  packages.set(name, { name, version, bytes, manifest: null });
}

const server = http.createServer((req, res) => {
  appendFileSync(logFile, `${req.method} ${req.url}\n`);
  const url = decodeURIComponent(req.url.split('?')[0]);
  const port = server.address().port;
  for (const p of packages.values()) {
    const file = `/${p.name}/-/${p.name}-${p.version}.tgz`;
    if (url === file) {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': p.bytes.length });
      return res.end(p.bytes);
    }
    if (url === `/${p.name}`) {
      const body = JSON.stringify({
        name: p.name,
        'dist-tags': { latest: p.version },
        versions: {
          [p.version]: {
            name: p.name,
            version: p.version,
            dist: {
              tarball: `http://127.0.0.1:${port}${file}`,
              shasum: createHash('sha1').update(p.bytes).digest('hex'),
              integrity: `sha512-${createHash('sha512').update(p.bytes).digest('base64')}`,
            },
          },
        },
      });
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(body);
    }
  }
  res.writeHead(404, { 'content-type': 'application/json' });
  res.end('{"error":"not found"}');
});
server.listen(0, '127.0.0.1', () => writeFileSync(portFile, JSON.stringify({ port: server.address().port })));
