// axe-core (from npm) in the browser: every page kind, light and dark, has no violation of the
// WCAG 2 A and AA rules (contrast, labels, names, structure).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { chromium } from "playwright-core";
import { startServer, chromiumOptions } from "./server.js";
import { pageKinds, signUp, open } from "./pages.js";

// Evaluated through the driver, so the site's CSP (script-src 'self') stays as it is.
const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
let server, browser;
const contexts = new Map();

before(async () => {
  server = await startServer();
  browser = await chromium.launch(chromiumOptions);
});

after(async () => {
  for (const c of contexts.values()) await c.close();
  await browser?.close();
  await server?.stop();
});

async function contextFor(scheme, width, signedIn) {
  const key = `${scheme}-${width}-${signedIn}`;
  if (!contexts.has(key)) {
    const context = await browser.newContext({ viewport: { width, height: 900 }, colorScheme: scheme, reducedMotion: "reduce" });
    if (signedIn) await signUp(context, server.url, `axe-${scheme}-${width}@example.com`);
    contexts.set(key, context);
  }
  return contexts.get(key);
}

// Contrast depends on the theme, layout on the width: light at both widths, dark at the wide one
// (the dark theme changes colours only).
for (const scheme of ["light", "dark"]) {
  for (const width of scheme === "light" ? [1280, 375] : [1280]) {
    test(`no WCAG 2 A/AA violations, ${scheme} theme, ${width} px`, async () => {
      const found = [];
      for (const kind of pageKinds) {
        const page = await (await contextFor(scheme, width, !!kind.signedIn)).newPage();
        await open(page, server.url, kind);
        await page.evaluate(axeSource);
        const violations = await page.evaluate(async () => {
          const r = await window.axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa"] }, resultTypes: ["violations"] });
          return r.violations.map((v) => ({ id: v.id, help: v.help, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(" ") + ": " + n.failureSummary.split("\n").slice(1, 2).join("")) }));
        });
        for (const v of violations) found.push(`${kind.path}: ${v.id} (${v.help}) at ${v.nodes.join(" | ")}`);
        await page.close();
      }
      assert.deepEqual(found, [], found.join("\n"));
    });
  }
}
