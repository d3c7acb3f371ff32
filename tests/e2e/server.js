// Starts `ridge serve` on a free port for a test file and stops it afterwards.
import { spawn } from "node:child_process";
import { before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

// Every folder a server was given, removed when the test process exits, however its server
// ended (a test that SIGKILLs a server, or fails before stop(), used to leave ridge-e2e-* behind).
const folders = new Set();
process.on("exit", () => { for (const dir of folders) rmSync(dir, { recursive: true, force: true }); });

export async function startServer(options = {}) {
  const bin = process.env.RIDGE_BIN;
  if (!bin) throw new Error("RIDGE_BIN must name the ridge binary");
  const dir = mkdtempSync(join(tmpdir(), "ridge-e2e-"));
  folders.add(dir);
  const db = options.db || "sqlite:" + join(dir, "ridge.db");
  const args = ["serve", "--port", String(options.port || 0), "--threads", "2", "--db", db,
                "--mail-dir", options.mailDir || join(dir, "mail"), ...(options.args || [])];
  // options.nofile: the server's open-file limit (ulimit -n), for the descriptor-exhaustion test.
  const child = options.nofile
    ? spawn("bash", ["-c", `ulimit -n ${options.nofile}; exec "$0" "$@"`, bin, ...args], { stdio: ["ignore", "pipe", "pipe"] })
    : spawn(bin, args, {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...(options.env || {}) },
  });
  let output = "";
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("server did not start: " + output)), 20000);
    const onData = (chunk) => {
      output += chunk;
      const m = output.match(/listening on (http:\/\/[0-9.]+:\d+)\//);
      if (m) { clearTimeout(timer); resolve(m[1]); }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    if (options.log) { child.stdout.on("data", (d) => process.stderr.write(d)); child.stderr.on("data", (d) => process.stderr.write(d)); }
    child.on("exit", (code) => reject(new Error("server exited with " + code + ": " + output)));
  });
  const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  return {
    url, child, exited, dir, db,
    output: () => output, log: () => output,
    async stop() {
      if (child.exitCode === null) child.kill("SIGTERM");
      const result = await exited;
      rmSync(dir, { recursive: true, force: true });
      folders.delete(dir);
      return result;
    },
  };
}

export const chromiumOptions = {
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"],
};

// A test file's server and Chromium, started before its tests and stopped after them (the
// server must exit 0 on SIGTERM). Returns an object whose `server` and `browser` are set once
// the tests run.
export function serverAndBrowser(options = {}) {
  const env = { server: null, browser: null };
  before(async () => {
    const { chromium } = await import("playwright-core");
    env.server = await startServer(options);
    env.browser = await chromium.launch(chromiumOptions);
  });
  after(async () => {
    await env.browser?.close();
    const result = await env.server?.stop();
    assert.equal(result.code, 0, "the server exits 0 on SIGTERM");
  });
  return env;
}
