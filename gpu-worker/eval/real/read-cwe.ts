import { readFileSync } from "node:fs";
import { join } from "node:path";

/** A CWE weakness with MITRE's likelihood of exploit. */
export interface Weakness {
  id: string;
  name: string;
  description: string;
  likelihood: "Low" | "Medium" | "High";
}

export const LIKELIHOODS = ["Low", "Medium", "High"] as const;
const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };
const decodeEntities = (s: string) =>
  s.replace(/&(amp|lt|gt|quot|apos);/g, (_, e: string) => ENTITIES[e] as string);

/**
 * Every weakness of the catalogue (cwe2's `cwec_v4.14.xml`) that carries a `Likelihood_Of_Exploit`. The file is
 * machine-written: one `<Weakness ID=… Name=…>` element per weakness, its `<Description>` plain text.
 */
export function readCwe(dir: string): Weakness[] {
  const xml = readFileSync(join(dir, "cwe2", "database_v49", "cwec_v4.14.xml"), "utf8");
  return [...xml.matchAll(/<Weakness ID="(\d+)" Name="([^"]*)"[^>]*>([\s\S]*?)<\/Weakness>/g)].flatMap(
    ([, id, name, body]) => {
      const likelihood = /<Likelihood_Of_Exploit>(\w+)<\/Likelihood_Of_Exploit>/.exec(body as string)?.[1];
      const description = /<Description>([^<]*)<\/Description>/.exec(body as string)?.[1];
      if (!description || !LIKELIHOODS.includes(likelihood as Weakness["likelihood"])) return [];
      return [
        {
          id: id as string,
          name: decodeEntities(name as string),
          description: decodeEntities(description.trim().replace(/\s+/g, " ")),
          likelihood: likelihood as Weakness["likelihood"],
        },
      ];
    },
  );
}
