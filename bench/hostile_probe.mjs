// The signed-in user of bench/hostile.mjs, on a thread of its own: it asks /api/me every 50 ms
// until `stopAt` and posts back each request's latency and the failures. On the hostile clients'
// event loop a probe's answer waited behind up to 100 hostile answers to be read, so the client's
// own backlog was counted as the server's latency; here only the server and the kernel are.
import { parentPort, workerData } from "node:worker_threads";

const { base, cookie, stopAt, startAfterMs } = workerData;
const times = [];
let failures = 0;
await new Promise((r) => setTimeout(r, startAfterMs));  // let the flood build up
while (Date.now() < stopAt) {
  const t0 = performance.now();
  try {
    const r = await fetch(base + "/api/me", { headers: { cookie }, signal: AbortSignal.timeout(10000) });
    const j = await r.json();
    if (r.status !== 200 || j.signed_in !== true) ++failures;
  } catch { ++failures; }
  times.push(performance.now() - t0);
  await new Promise((r) => setTimeout(r, 50));
}
parentPort.postMessage({ times, failures });
