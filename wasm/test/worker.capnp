# workerd configuration of scripts/package-wasm.sh's workerd test, copied next to the
# installed package (node_modules/airlock-wasm) and the vector files; run with
# `workerd test worker.capnp`.
using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [(name = "main", worker = .vectors)],
);

const vectors :Workerd.Worker = (
  compatibilityDate = "2025-01-01",
  compatibilityFlags = ["nodejs_compat"],
  modules = [
    (name = "worker.js", esModule = embed "worker.js"),
    (name = "vectors.js", esModule = embed "vectors.js"),
    (name = "node_modules/airlock-wasm/index.workerd.js", esModule = embed "node_modules/airlock-wasm/index.workerd.js"),
    (name = "node_modules/airlock-wasm/lib/api.js", esModule = embed "node_modules/airlock-wasm/lib/api.js"),
    (name = "node_modules/airlock-wasm/lib/airlock.js", esModule = embed "node_modules/airlock-wasm/lib/airlock.js"),
    (name = "node_modules/airlock-wasm/lib/constants.js", esModule = embed "node_modules/airlock-wasm/lib/constants.js"),
    (name = "node_modules/airlock-wasm/airlock.wasm", wasm = embed "node_modules/airlock-wasm/airlock.wasm"),
    (name = "reference-vectors.jsonl", text = embed "reference-vectors.jsonl"),
    (name = "gate-3.21-vectors.jsonl", text = embed "gate-3.21-vectors.jsonl"),
    (name = "edge-vectors.jsonl", text = embed "edge-vectors.jsonl"),
    (name = "node-vectors.jsonl", text = embed "node-vectors.jsonl"),
    (name = "strict-vectors.jsonl", text = embed "strict-vectors.jsonl"),
  ],
);
