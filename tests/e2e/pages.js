// One page of every kind the site serves, for the screenshot and accessibility tests. Each
// entry says how to reach it; `signedIn` pages are opened in a context that has signed up.
export const pageKinds = [
  { name: "home", path: "/" },
  { name: "topic", path: "/topics/kernels" },
  // A long answer, revealed, so its contents column shows on wide screens.
  { name: "question", path: "/q/fsdp-or-pipeline-across-nodes", reveal: true },
  { name: "concept", path: "/concepts/kv-cache" },
  { name: "course", path: "/courses/kernels" },
  { name: "company", path: "/companies/anthropic" },
  { name: "search", path: "/search?q=kv+cache" },
  { name: "calculator", path: "/calc/fit" },
  { name: "pricing", path: "/pricing" },
  { name: "signin", path: "/signin" },
  { name: "dashboard", path: "/dashboard", signedIn: true },
  { name: "drill", path: "/drill?seed=3", signedIn: true },
  // The lab has no page of its own: a coding question that names its lab build stands for it.
  { name: "lab", path: "/q/ring-allreduce-byte-counting-simulator", reveal: true },
  { name: "hardware", path: "/hardware" },
];

// Signs a fresh account up in `context` (a playwright BrowserContext) through the real form.
export async function signUp(context, url, email) {
  const page = await context.newPage();
  await page.goto(url + "/signup");
  await page.fill("#email", email);
  await page.fill("#password", "correct horse battery");
  await Promise.all([page.waitForNavigation(), page.click("form.calc button[type=submit]")]);
  if (!/\/dashboard$/.test(page.url())) throw new Error("sign-up did not reach the dashboard: " + page.url());
  await page.close();
}

// Opens `kind` in `page` and waits until the script has filled in what it fills in.
export async function open(page, url, kind) {
  await page.goto(url + kind.path, { waitUntil: "networkidle" });
  if (kind.reveal) await page.evaluate(() => { for (const d of document.querySelectorAll("details.reveal")) d.open = true; });
  // Fonts loaded, and one frame and one task later so the script's toggle handlers have run.
  await page.evaluate(() => document.fonts.ready.then(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)))));
}
