import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** One dialogue pair of the ChatterBot corpus with the language folder and the category file it is filed in. */
export interface Dialogue {
  language: string;
  category: string;
  lines: string[];
}

const unquote = (s: string) => s.trim().replace(/^(['"])(.*)\1$/, "$2");

/** Parses the corpus's simple YAML (`categories:` list, `conversations:` list of lists of strings). */
function parse(text: string): { categories: string[]; conversations: string[][] } {
  const categories: string[] = [];
  const conversations: string[][] = [];
  let section = "";
  for (const line of text.split(/\r?\n/)) {
    if (/^[a-z]+:/.test(line)) section = line.slice(0, line.indexOf(":"));
    else if (section === "categories" && line.startsWith("- ")) categories.push(unquote(line.slice(2)));
    else if (section === "conversations" && line.startsWith("- - "))
      conversations.push([unquote(line.slice(4))]);
    else if (section === "conversations" && line.startsWith("  - "))
      conversations.at(-1)?.push(unquote(line.slice(4)));
  }
  return { categories, conversations };
}

/** Every dialogue in `languages` (folder names), labelled by folder and file name. */
export function readChatterbot(dir: string, languages: readonly string[]): Dialogue[] {
  const data = join(dir, "chatterbot_corpus", "data");
  return languages.flatMap((language) =>
    readdirSync(join(data, language))
      .filter((f) => f.endsWith(".yml"))
      .sort()
      .flatMap((f) =>
        parse(readFileSync(join(data, language, f), "utf8")).conversations.map((lines) => ({
          language,
          category: f.replace(/\.yml$/, ""),
          lines: lines.filter((l) => l.length > 0),
        })),
      ),
  );
}
