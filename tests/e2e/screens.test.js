// Screenshots of every page kind at 1280 and 375 px (and the dark theme of two), compared with
// the references committed under tests/e2e/screens/ with a tolerance. Fixed viewport, system
// fonts only, animations off, the caret hidden, dynamic parts (dates, times) masked.
// RIDGE_UPDATE_SCREENS=1 rewrites the references instead of comparing; look at them before
// committing.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";
import { chromium } from "playwright-core";
import { PNG } from "pngjs";
import pixelmatch from "pixelmatch";
import { startServer, chromiumOptions } from "./server.js";
import { pageKinds, signUp, open } from "./pages.js";

const here = dirname(fileURLToPath(import.meta.url));
const references = join(here, "screens");
const artifacts = join(process.env.RIDGE_ARTIFACTS || "e2e-artifacts", "screens");
const update = process.env.RIDGE_UPDATE_SCREENS === "1";
// A pixel differs when its colour distance passes pixelmatch's threshold (anti-aliasing is
// ignored); a page passes while at most this share of its pixels differ.
const kThreshold = 0.1;
const kMaxDifferentShare = 0.002;
// Long pages are compared over their top part: enough to hold the layout of every kind.
const kMaxHeight = { 1280: 2400, 375: 3600 };
const kWidths = [1280, 375];
const kDark = new Set(["home", "question"]);
// What changes from run to run: dates and times the store fills in.
const kMasks = ["[data-dynamic]", "time"];

let server, browser;
const contexts = new Map();

before(async () => {
  mkdirSync(artifacts, { recursive: true });
  mkdirSync(references, { recursive: true });
  server = await startServer();
  browser = await chromium.launch({ ...chromiumOptions, args: [...chromiumOptions.args, "--font-render-hinting=none", "--hide-scrollbars"] });
});

after(async () => {
  for (const c of contexts.values()) await c.close();
  await browser?.close();
  await server?.stop();
});

async function contextFor(width, scheme, signedIn) {
  const key = `${width}-${scheme}-${signedIn}`;
  if (!contexts.has(key)) {
    const context = await browser.newContext({
      viewport: { width, height: width === 375 ? 812 : 900 }, deviceScaleFactor: 1, colorScheme: scheme,
      reducedMotion: "reduce", locale: "en-US", timezoneId: "UTC",
    });
    if (signedIn) await signUp(context, server.url, `screens-${width}-${scheme}@example.com`);
    contexts.set(key, context);
  }
  return contexts.get(key);
}

function compare(name, actual) {
  const file = join(references, name + ".png");
  if (update || !existsSync(file)) {
    if (!update) assert.fail(`no reference ${file}: run with RIDGE_UPDATE_SCREENS=1, look at it, commit it`);
    writeFileSync(file, actual);
    return;
  }
  const want = PNG.sync.read(readFileSync(file));
  const got = PNG.sync.read(actual);
  if (want.width !== got.width || want.height !== got.height) {
    writeFileSync(join(artifacts, name + ".actual.png"), actual);
    assert.fail(`${name}: ${got.width}x${got.height} px, the reference is ${want.width}x${want.height} (the page changed length; ` +
                `if that is intended, rerun with RIDGE_UPDATE_SCREENS=1 and look at the new reference)`);
  }
  const diff = new PNG({ width: got.width, height: got.height });
  const different = pixelmatch(want.data, got.data, diff.data, got.width, got.height, { threshold: kThreshold });
  const share = different / (got.width * got.height);
  if (share > kMaxDifferentShare) {
    writeFileSync(join(artifacts, name + ".actual.png"), actual);
    writeFileSync(join(artifacts, name + ".diff.png"), PNG.sync.write(diff));
    assert.fail(`${name}: ${different} pixels differ (${(share * 100).toFixed(2)}%, allowed ${kMaxDifferentShare * 100}%); ` +
                `see ${artifacts}/${name}.diff.png`);
  }
}

for (const kind of pageKinds) {
  for (const width of kWidths) {
    for (const scheme of kDark.has(kind.name) ? ["light", "dark"] : ["light"]) {
      const name = `${kind.name}-${width}${scheme === "dark" ? "-dark" : ""}`;
      test(`screenshot ${name}`, async () => {
        const page = await (await contextFor(width, scheme, !!kind.signedIn)).newPage();
        await open(page, server.url, kind);
        const height = Math.min(kMaxHeight[width], await page.evaluate(() => document.documentElement.scrollHeight));
        const shot = await page.screenshot({
          fullPage: true, clip: { x: 0, y: 0, width, height }, animations: "disabled", caret: "hide",
          mask: kMasks.map((s) => page.locator(s)), maskColor: "#ff00ff",
        });
        await page.close();
        compare(name, shot);
      });
    }
  }
}
