import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** One message of the SpamAssassin corpus: its folder (spam or ham, sorted by the corpus maintainers). */
export interface Mail {
  group: string;
  spam: boolean;
  id: string;
  subject: string;
  body: string;
}

const header = (head: string, name: string) =>
  new RegExp(`^${name}:[ \\t]*(.*(?:\\n[ \\t].*)*)`, "im").exec(head)?.[1]?.replace(/\s+/g, " ").trim() ?? "";

const entities: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', nbsp: " ", "#39": "'" };
const stripHtml = (s: string) =>
  s
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, " ")
    .replace(/<[^>]*>/g, " ")
    .replace(/&([a-z0-9#]+);/gi, (m, e: string) => entities[e.toLowerCase()] ?? m);
const unQuotedPrintable = (s: string) =>
  s
    .replace(/=\r?\n/g, "")
    .replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16)));

/** The first text part of a (possibly multipart) message, decoded to plain text; "" for base64 or binary parts. */
function textOf(head: string, body: string): string {
  const type = header(head, "Content-Type").toLowerCase();
  const boundary = /boundary="?([^";]+)"?/i.exec(header(head, "Content-Type"))?.[1];
  if (type.startsWith("multipart/") && boundary) {
    for (const part of body.split(`--${boundary}`).slice(1)) {
      const cut = part.search(/\r?\n\r?\n/);
      if (cut < 0) continue;
      const t = textOf(part.slice(0, cut), part.slice(cut).trim());
      if (t) return t;
    }
    return "";
  }
  if (/base64/i.test(header(head, "Content-Transfer-Encoding"))) return "";
  if (type && !type.startsWith("text/")) return "";
  let text = /quoted-printable/i.test(header(head, "Content-Transfer-Encoding"))
    ? unQuotedPrintable(body)
    : body;
  if (type.startsWith("text/html") || /<html|<body|<br|<p>/i.test(text)) text = stripHtml(text);
  return text;
}

/** Every message in `groups` (corpus folders) with its subject and plain-text body (whitespace collapsed). */
export function readMail(dir: string, groups: readonly string[]): Mail[] {
  const data = join(dir, "package", "data");
  return groups.flatMap((group) =>
    readdirSync(join(data, group))
      .filter((f) => f.endsWith(".json"))
      .sort()
      .map((f) => {
        const raw = (JSON.parse(readFileSync(join(data, group, f), "utf8")) as { text: string }).text;
        const cut = raw.search(/\r?\n\r?\n/);
        const head = raw.slice(0, cut);
        const body = textOf(head, raw.slice(cut).trim())
          .replace(/[ \t]+/g, " ")
          .replace(/\s*\n\s*/g, "\n")
          .replace(/\n{2,}/g, "\n")
          .trim();
        return {
          group,
          spam: group.startsWith("spam"),
          id: `${group}/${f.slice(0, 5)}`,
          subject: header(head, "Subject"),
          body,
        };
      }),
  );
}
