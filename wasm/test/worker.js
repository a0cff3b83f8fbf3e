// Every conformance vector file through the package under workerd: the runner of
// ffi/node/test/vectors.js in a `test` handler (`workerd test`), the package's
// workerd entry imported with airlock.wasm listed as a wasm module, as wrangler
// bundles it; the vector files are text modules (workerd has no file system).

import * as airlock from './node_modules/airlock-wasm/index.workerd.js';
import { FILES, STRICT_FILE, checkStrictVectors, checkVectors, vectorLines } from './vectors.js';
import reference from './reference-vectors.jsonl';
import gate321 from './gate-3.21-vectors.jsonl';
import edge from './edge-vectors.jsonl';
import node from './node-vectors.jsonl';
import strictText from './strict-vectors.jsonl';

const TEXTS = {
  'reference-vectors.jsonl': reference,
  'gate-3.21-vectors.jsonl': gate321,
  'edge-vectors.jsonl': edge,
  'node-vectors.jsonl': node,
};

export default {
  async test() {
    const lines = FILES.flatMap((file) => vectorLines(file, TEXTS[file]));
    const failures = checkVectors(airlock, lines);
    const strict = checkStrictVectors(airlock, vectorLines(STRICT_FILE, strictText));
    const all = [...failures, ...strict.failures];
    console.log(`workerd: ${lines.length} vectors and ${strict.ran} strict vectors, ${all.length} failing`);
    if (all.length > 0 || lines.length < 1900 || strict.ran < 12000) {
      throw new Error(`vectors fail under workerd:\n${all.slice(0, 20).join('\n')}`);
    }
  },
};
