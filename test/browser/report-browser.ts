// vitest globalSetup of the browser tier: says plainly which Chromium runs the tier, or that it is skipped.
import { chromiumPath, launchChromium } from "../support/browser";

export async function setup(): Promise<void> {
  const path = chromiumPath();
  if (!path) {
    console.log(
      `\nbrowser tier: SKIPPED: no Chromium at ${process.env.SVC_CHROMIUM || "/usr/lib/chromium/chromium"} ` +
        "(install Debian's: apt-get install chromium, or set SVC_CHROMIUM to a Chromium binary).\n",
    );
    return;
  }
  const browser = await launchChromium(path);
  // Playwright pins its own build; Debian's is another major: print it so a change is visible.
  console.log(`\nbrowser tier: Chromium ${browser.version()} at ${path}\n`);
  await browser.close();
}
