// Regression tests over a real socket for the findings of the attack on a running ridge
// (issue 13): hostile searches cannot stall the server, header injection through `next`,
// RFC 9112 framing, and a restart on the same port right after SIGKILL.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import net from "node:net";
import { readFileSync } from "node:fs";
import { startServer } from "./server.js";

let server;
before(async () => { server = await startServer(); });
after(async () => { await server.stop(); });

function raw(text, url = server.url, wait = 5000) {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port) }, () => socket.write(text));
    let data = "";
    socket.on("data", (d) => { data += d; });
    socket.on("end", () => resolve(data));
    socket.on("close", () => resolve(data));
    socket.on("error", () => resolve(data));
    setTimeout(() => { socket.destroy(); resolve(data); }, wait);
  });
}

async function timed(path) {
  const start = performance.now();
  const res = await fetch(server.url + path);
  await res.text();
  return { status: res.status, ms: performance.now() - start };
}

test("finding 1: /healthz answers within 50 ms while 100 hostile searches run", async () => {
  const repeated = Array(40).fill("a").join("+");
  const distinct = Array.from({ length: 100 }, (_, i) => "w" + i.toString(36)).join("+");
  const hostile = [];
  for (let i = 0; i < 100; ++i) {
    // A word of its own leads each query, so no two share an entry of the search cache: every
    // one is a real search on the worker pool.
    const own = "u" + i.toString(36) + "x" + Math.random().toString(36).slice(2, 8);
    hostile.push(fetch(`${server.url}/search?q=${own}+${i % 2 ? repeated : distinct}`).then((r) => r.text()));
  }
  // Probe while they run.
  const probes = [];
  for (let i = 0; i < 9; ++i) {
    probes.push((await timed("/healthz")).ms);
    await new Promise((r) => setTimeout(r, 20));
  }
  const page = await timed("/q/prefill-vs-decode");
  const started = performance.now();
  await Promise.all(hostile);
  const hostileMs = performance.now() - started;
  probes.sort((a, b) => a - b);
  const median = probes[Math.floor(probes.length / 2)];
  console.log(`healthz during 100 hostile searches: median ${median.toFixed(1)} ms, worst ${probes.at(-1).toFixed(1)} ms; ` +
              `the searches finished ${hostileMs.toFixed(0)} ms after the probes`);
  assert.ok(median < 50, `median /healthz ${median} ms`);
  assert.ok(probes.at(-1) < 500, `worst /healthz ${probes.at(-1)} ms`);
  assert.equal(page.status, 200);
  // A hostile query alone is fast: the terms are deduplicated and capped.
  const one = await timed(`/search?q=${repeated}`);
  assert.equal(one.status, 200);
  assert.ok(one.ms < 1000, `one hostile search took ${one.ms} ms`);
});

test("finding 2: next cannot inject a header", async () => {
  const res = await raw("POST /signin?next=/x%0d%0aSet-Cookie:%20ridge_session=attacker;%20Path=/ HTTP/1.1\r\nHost: t\r\n" +
                        "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 11\r\nConnection: close\r\n\r\nemail=a%40b");
  assert.match(res, /^HTTP\/1\.1 403 /);  // no pre-session token: refused before anything else
  assert.doesNotMatch(res, /ridge_session=attacker/);
  const form = await raw("GET /signin?next=/x%0d%0aSet-Cookie:%20x=y HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n");
  assert.match(form, /^HTTP\/1\.1 200 /);
  assert.doesNotMatch(form, /\r\nSet-Cookie: x=y/);
  assert.match(form, /\r\nCache-Control: private, no-store\r\n/);
});

test("finding 11: framing per RFC 9112", async () => {
  const te = (value) => raw(`POST /api/signin HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: ${value}\r\n\r\n0\r\n\r\nGET /healthz HTTP/1.1\r\nHost: t\r\n\r\n`);
  for (const value of ["xchunked", "chunked, identity"]) {
    const res = await te(value);
    assert.match(res, /^HTTP\/1\.1 400 /, value);
    assert.equal((res.match(/HTTP\/1\.1 /g) || []).length, 1, `the rest was not read as a request (${value})`);
  }
  assert.match(await raw("GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n"), /^HTTP\/1\.1 400 /);
  assert.match(await raw("GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\nConnection: close\r\n\r\n"), /^HTTP\/1\.1 400 /);
  assert.match(await raw("GET /healthz HTTP/1.0\r\n\r\n"), /^HTTP\/1\.0 200 /);  // HTTP/1.0 needs no Host
});

test("finding 15: the status line names 201", async () => {
  const body = JSON.stringify({ email: "s15@example.com", password: "correct horse battery" });
  const res = await raw(`POST /api/signup HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`);
  assert.match(res, /^HTTP\/1\.1 201 Created\r\n/);
});

test("finding 8: a restart binds the same port at once after SIGKILL", async () => {
  const first = await startServer();
  const port = new URL(first.url).port;
  // A kept-alive client, so the killed server's socket lingers in TIME_WAIT.
  const socket = net.connect({ host: "127.0.0.1", port: Number(port) });
  await new Promise((r) => socket.on("connect", r));
  socket.write("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n");
  await new Promise((r) => socket.once("data", r));
  first.child.kill("SIGKILL");
  await first.exited;
  socket.destroy();
  const second = await startServer({ port });
  assert.equal(new URL(second.url).port, port);
  assert.equal((await fetch(second.url + "/healthz")).status, 200);
  await second.stop();
  await first.stop();
});

test("finding 5: out of file descriptors, the server backs off instead of spinning, and serves again", async () => {
  const limited = await startServer({ nofile: 128 });
  const { port } = new URL(limited.url);
  const cpuTicks = () => {
    const fields = readFileSync(`/proc/${limited.child.pid}/stat`, "utf8").split(") ")[1].split(" ");
    return Number(fields[11]) + Number(fields[12]);  // utime + stime, in clock ticks (100 a second)
  };
  // Far more idle connections than descriptors: accept hits EMFILE.
  const sockets = [];
  for (let i = 0; i < 300; ++i) {
    const s = net.connect({ host: "127.0.0.1", port: Number(port) });
    s.on("error", () => {});
    sockets.push(s);
  }
  await new Promise((r) => setTimeout(r, 1000));
  const before = cpuTicks();
  await new Promise((r) => setTimeout(r, 2000));
  const used = (cpuTicks() - before) / 200;  // share of one core over those 2 s
  console.log(`CPU while out of descriptors: ${(used * 100).toFixed(1)}% of one core`);
  assert.ok(used < 0.5, `the accept loop spun at ${used * 100}% of a core`);
  assert.match(limited.log(), /backing off/);
  // When the idle clients go, the server takes new ones again (no restart, nothing stuck).
  sockets.forEach((s) => s.destroy());
  const res = await fetch(limited.url + "/healthz", { signal: AbortSignal.timeout(30000) });
  assert.equal(res.status, 200);
  await limited.stop();
});

// Issue 28 (low): connections opened before the descriptor limit got tight kept their 60 s idle
// timeout: with 256 descriptors and 600 idle connections, /healthz timed out for 10 s. Under
// pressure every connection idle for longer than the short timeout (2 s) is now closed.
test("finding 28: under descriptor pressure, connections idle since before it are closed and /healthz answers", async () => {
  const limited = await startServer({ nofile: 256 });
  const { port } = new URL(limited.url);
  const sockets = [];
  // From ten loopback addresses, 60 each: under the per-client cap of 128, as ten clients.
  const open = (n) => {
    for (let i = 0; i < n; ++i) {
      const s = net.connect({ host: "127.0.0.1", port: Number(port), localAddress: `127.0.1.${(sockets.length % 10) + 1}` });
      s.on("error", () => {});
      sockets.push(s);
    }
  };
  open(150);  // below 70% of 256: these get the 60 s idle timeout
  await new Promise((r) => setTimeout(r, 1500));
  open(450);  // past the limit: accept runs out of descriptors
  await new Promise((r) => setTimeout(r, 500));
  const start = performance.now();
  const res = await fetch(limited.url + "/healthz", { signal: AbortSignal.timeout(30000) });
  const ms = performance.now() - start;
  console.log(`/healthz behind 600 idle connections on 256 descriptors: ${ms.toFixed(0)} ms`);
  assert.equal(res.status, 200);
  // Before: the first 150 held their descriptors for 60 s and /healthz waited 10 s or more.
  // Now the sweep frees them after 2 s idle; the rest of the backlog drains in 2 s rounds.
  assert.ok(ms < 8000, `/healthz took ${ms} ms`);
  const closedEarly = sockets.slice(0, 150).filter((s) => s.destroyed || s.readyState !== "open").length;
  assert.ok(closedEarly >= 100, `only ${closedEarly} of the 150 early idle connections were closed`);
  sockets.forEach((s) => s.destroy());
  await limited.stop();
});

// Issue 28, the two critical findings: one request could hold a worker for 29 s (a layout
// refusal that listed divisors by counting up to dp × cp) or minutes (mlp_only_layers scanned
// once per layer of 2^24). Each now answers at once; the bound here is a tenth of the old cost.
test("finding 28: a layout refusal over a huge dp × cp answers at once, and again from the cache", async () => {
  const path = "/api/calc/layout?model=mixtral-8x7b&gpus=8&dp=9999991&cp=1024&ep=3&seq=4096&global-batch=1024";
  const first = await timed(path);
  assert.equal(first.status, 400);
  assert.ok(first.ms < 2900, `layout refusal took ${first.ms} ms`);
  const a = await (await fetch(server.url + path)).text();
  const b = await (await fetch(server.url + path)).text();
  assert.equal(a, b);
  assert.match(a, /does not divide dp × cp/);
  const page = await timed(path.replace("/api/calc/", "/calc/"));
  assert.ok(page.ms < 2900, `the form page took ${page.ms} ms`);
});

test("finding 28: mlp_only_layers on 2^24 layers answers at once", async () => {
  const only = Array.from({ length: 5000 }, (_, i) => i * 3);
  const config = { model_type: "qwen3_moe", hidden_size: 64, num_hidden_layers: 16777216, num_attention_heads: 4,
                   num_key_value_heads: 4, head_dim: 16, vocab_size: 100, intermediate_size: 128, num_experts: 8,
                   num_experts_per_tok: 2, moe_intermediate_size: 32, mlp_only_layers: only };
  const start = performance.now();
  const res = await fetch(server.url + "/api/calc/fit", {
    method: "POST", headers: { "content-type": "application/json" },
    body: JSON.stringify({ config, gpu: "h100-sxm", gpus: "8" }) });
  const text = await res.text();
  const ms = performance.now() - start;
  assert.ok(ms < 1600, `fit with 2^24 layers took ${ms} ms`);
  assert.ok(res.status === 200 || res.status === 400, `status ${res.status}: ${text.slice(0, 200)}`);
});
