// Issue 28's hostile clients against a running ridge, one kind at a time: 100 concurrent
// clients for DURATION seconds each (bounded in count and time), while one signed-in user asks
// /api/me every 50 ms from a thread of its own (bench/hostile_probe.mjs). Prints, per kind, the hostile requests answered (by status) and /api/me's
// p50, p95 and max latency. Usage: node bench/hostile.mjs BASE_URL [SECONDS]
// The server must trust 127.0.0.1 as a proxy (--trusted-proxy 127.0.0.1/32) so the sign-in
// flood can come from 100 addresses (X-Forwarded-For).
import { Worker } from "node:worker_threads";

const base = process.argv[2];
const seconds = Number(process.argv[3] || 20);
if (!base) { console.error("usage: node bench/hostile.mjs BASE_URL [SECONDS]"); process.exit(2); }
const CLIENTS = 100;

async function signup(email) {
  const r = await fetch(base + "/api/signup", { method: "POST", headers: { "content-type": "application/json", "x-forwarded-for": "10.200.0.1" },
                                                body: JSON.stringify({ email, password: "correct horse battery staple" }) });
  if (r.status !== 201) throw new Error(`sign-up of ${email}: ${r.status} ${await r.text()}`);
  const cookie = r.headers.get("set-cookie").split(";")[0];
  const { csrf_token } = await r.json();
  return { cookie, csrf: csrf_token };
}

const bigConfig = (i) => JSON.stringify({
  config: { model_type: "qwen3_moe", hidden_size: 64 + 16 * (i % 50), num_hidden_layers: 16777216, num_attention_heads: 4,
            num_key_value_heads: 4, head_dim: 16, vocab_size: 100, intermediate_size: 128, num_experts: 8, num_experts_per_tok: 2,
            moe_intermediate_size: 32, mlp_only_layers: Array.from({ length: 5000 }, (_, k) => k * 3) },
  gpu: "h100-sxm", gpus: "8" });

// Each kind: (client index, request index, the hostile account) -> [url, init].
const kinds = {
  "layout over a huge dp x cp": (c, i) => [`/api/calc/layout?model=mixtral-8x7b&gpus=8&dp=${9999991 - 2 * (c * 100000 + i)}&cp=1024&ep=3&seq=4096&global-batch=1024`, {}],
  "fit, 2^24 layers, 5,000 mlp_only_layers": (c, i) => ["/api/calc/fit", { method: "POST", headers: { "content-type": "application/json" }, body: bigConfig(c * 1000 + i) }],
  "wrong current password on /settings": (c, i, acct) => ["/settings", { method: "POST", redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: acct.cookie },
    body: `csrf=${acct.csrf}&action=password&current=wrong+guess+${c}+${i}&new=another+long+passphrase` }],
  "sign-in flood from 100 addresses": (c, i) => ["/api/signin", { method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": `10.${100 + (c >> 8)}.${c & 255}.${i & 255}` },
    body: JSON.stringify({ email: `victim${c % 10}@example.com`, password: `guess ${c} ${i}` }) }],
  "hostile searches": (c, i) => [`/search?q=${encodeURIComponent(Array.from({ length: 40 }, (_, k) => `a${(c * 7 + i + k) % 97}*`).join(" OR "))}`, {}],
};

function pct(sorted, p) { return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] : NaN; }

async function run(name, make, acct, user) {
  const stopAt = Date.now() + seconds * 1000;
  const statuses = {};
  let sent = 0;
  const hostile = Array.from({ length: CLIENTS }, async (_, c) => {
    for (let i = 0; Date.now() < stopAt && i < 100000; ++i) {
      const [path, init] = make(c, i, acct);
      try {
        const r = await fetch(base + path, { ...init, signal: AbortSignal.timeout(30000) });
        await r.arrayBuffer();
        statuses[r.status] = (statuses[r.status] || 0) + 1;
      } catch (e) { statuses[e.name] = (statuses[e.name] || 0) + 1; }
      ++sent;
    }
  });
  // The probe runs on its own thread (bench/hostile_probe.mjs), so its latencies are the server's.
  const probe = new Promise((resolve, reject) => {
    const w = new Worker(new URL("./hostile_probe.mjs", import.meta.url),
                         { workerData: { base, cookie: user.cookie, stopAt, startAfterMs: 500 } });
    w.once("message", resolve);
    w.once("error", reject);
  });
  const [, { times, failures }] = await Promise.all([Promise.all(hostile), probe]);
  times.sort((a, b) => a - b);
  return { name, sent, statuses, n: times.length, failures, p50: pct(times, 0.5), p95: pct(times, 0.95), max: times[times.length - 1] };
}

const user = await signup(`probe-${Date.now()}@example.com`);
const acct = await signup(`hostile-${Date.now()}@example.com`);
for (let v = 0; v < 10; ++v) { try { await signup(`victim${v}@example.com`); } catch {} }
const only = process.env.ONLY ? new RegExp(process.env.ONLY) : null;
console.log(`| hostile kind (${CLIENTS} clients, ${seconds} s) | hostile requests answered | /api/me p50 | p95 | max | /api/me failures |`);
console.log("|---|---|---|---|---|---|");
let worst = 0;
for (const [name, make] of Object.entries(kinds)) {
  if (only && !only.test(name)) continue;
  const r = await run(name, make, acct, user);
  const answered = Object.entries(r.statuses).map(([s, n]) => `${n} x ${s}`).join(", ");
  console.log(`| ${name} | ${answered} | ${r.p50.toFixed(1)} ms | ${r.p95.toFixed(1)} ms | ${r.max.toFixed(1)} ms | ${r.failures} of ${r.n} |`);
  worst = Math.max(worst, r.p95);
  await new Promise((res) => setTimeout(res, 1000));
}
if (worst >= 100) { console.error(`/api/me p95 reached ${worst.toFixed(1)} ms (target: under 100 ms)`); process.exit(1); }
