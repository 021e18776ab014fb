/**
 * The floors of workers/ (issue 53): a value import may only go from a room to a room on a lower floor (or
 * within one room). The order is read from docs/architecture.md's `floors` block, the one place it is written.
 * Type-only imports are left out: they vanish when the code is bundled, and `env.ts`'s typed Durable Object
 * namespaces are what `wrangler types` generates. Also refused: any import from workers/ into gpu-worker/.
 *
 *   tsx scripts/check-layers.ts            check the tree (exit 1 on a violation)
 *   tsx scripts/check-layers.ts --graph    print room → room value edges with their counts
 *   tsx scripts/check-layers.ts --root DIR check another checkout (e.g. an old commit's worktree)
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import ts from "typescript";

export interface ValueImport {
  from: string; // the importing file, relative to the root, with "/" separators
  to: string; // the imported file or package specifier
  line: number;
}

export interface Violation extends ValueImport {
  why: string;
}

/** The floors, bottom first, from the fenced ```floors block of docs/architecture.md: one floor a line. */
export function readFloors(architectureMarkdown: string): string[][] {
  const block = /```floors\n([\s\S]*?)```/.exec(architectureMarkdown);
  if (!block) throw new Error("docs/architecture.md has no ```floors block");
  const floors = block[1]!
    .split("\n")
    .map((line) => line.replace(/#.*$/, "").trim())
    .filter((line) => line.length > 0)
    .map((line) => line.split(/\s+/));
  return floors.reverse(); // written top floor first, as a house is drawn
}

/** The value imports of one TypeScript source (imports and re-exports that are not `type`-only). */
export function valueImports(fileName: string, text: string): Array<{ specifier: string; line: number }> {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const found: Array<{ specifier: string; line: number }> = [];
  const add = (node: ts.Node, specifier: ts.Expression | undefined) => {
    if (!specifier || !ts.isStringLiteral(specifier)) return;
    found.push({
      specifier: specifier.text,
      line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1,
    });
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      if (!clause) return add(node, node.moduleSpecifier); // side-effect import
      if (clause.isTypeOnly) return;
      const named = clause.namedBindings;
      const onlyTypes =
        !clause.name &&
        named !== undefined &&
        ts.isNamedImports(named) &&
        named.elements.every((e) => e.isTypeOnly);
      if (!onlyTypes || named.elements.length === 0) add(node, node.moduleSpecifier);
      return;
    }
    if (ts.isExportDeclaration(node)) {
      if (node.isTypeOnly) return;
      const clause = node.exportClause;
      if (
        clause &&
        ts.isNamedExports(clause) &&
        clause.elements.length > 0 &&
        clause.elements.every((e) => e.isTypeOnly)
      )
        return;
      return add(node, node.moduleSpecifier);
    }
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      add(node, node.arguments[0]);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (/\.tsx?$/.test(name) && !name.endsWith(".d.ts")) out.push(path);
  }
  return out;
}

/** A workers/ file's room: its top folder under workers/, or the file's own name for a top-level file. */
export function roomOf(pathInWorkers: string): string {
  const parts = pathInWorkers.split("/");
  return parts.length === 1 ? `${parts[0]!.replace(/\.tsx?$/, "")}.ts` : parts[0]!;
}

function toPosix(path: string): string {
  return path.split(sep).join("/");
}

export function collectImports(root: string): ValueImport[] {
  const imports: ValueImport[] = [];
  for (const file of sourceFiles(join(root, "workers"))) {
    // Generated, untracked bench entries (workers/.bench-*-entry.ts) are not rooms of the house.
    if (toPosix(file).includes("/pages/dist/") || /\/\.[^/]*$/.test(toPosix(file))) continue;
    for (const { specifier, line } of valueImports(file, readFileSync(file, "utf8"))) {
      const to = specifier.startsWith(".")
        ? toPosix(relative(root, resolve(dirname(file), specifier)))
        : specifier;
      imports.push({ from: toPosix(relative(root, file)), to, line });
    }
  }
  return imports;
}

export function checkLayers(imports: ValueImport[], floors: string[][]): Violation[] {
  const floorOf = new Map<string, number>();
  floors.forEach((rooms, index) => {
    for (const room of rooms) floorOf.set(room, index);
  });
  const violations: Violation[] = [];
  for (const imp of imports) {
    const fromKey = roomOf(imp.from.replace(/^workers\//, ""));
    if (imp.to.startsWith("gpu-worker/") || imp.to === "gpu-worker") {
      violations.push({
        ...imp,
        why: "workers/ imports nothing from gpu-worker/ (shared code lives in schema/)",
      });
      continue;
    }
    if (!imp.to.startsWith("workers/")) continue;
    const toKey = roomOf(imp.to.replace(/^workers\//, ""));
    if (fromKey === toKey) continue;
    const fromFloor = floorOf.get(fromKey);
    const toFloor = floorOf.get(toKey);
    if (fromFloor === undefined) {
      violations.push({ ...imp, why: `room ${fromKey} is on no floor of docs/architecture.md` });
      continue;
    }
    if (toFloor === undefined) {
      violations.push({ ...imp, why: `room ${toKey} is on no floor of docs/architecture.md` });
      continue;
    }
    if (toKey === "routes" && fromKey !== "app.ts") {
      violations.push({ ...imp, why: "a feature never imports from routes/" });
      continue;
    }
    if (toFloor >= fromFloor) {
      const where = toFloor === fromFloor ? "the same floor" : "a higher floor";
      violations.push({
        ...imp,
        why: `${fromKey} (floor ${fromFloor}) imports ${toKey} on ${where} (${toFloor})`,
      });
    }
  }
  return violations;
}

function main(argv: string[]): number {
  const rootIndex = argv.indexOf("--root");
  const root = resolve(rootIndex >= 0 ? argv[rootIndex + 1]! : ".");
  const imports = collectImports(root);
  if (argv.includes("--graph")) {
    const edges = new Map<string, number>();
    for (const imp of imports) {
      if (!imp.to.startsWith("workers/") && !imp.to.startsWith("gpu-worker/")) continue;
      const fromRoom = roomOf(imp.from.replace(/^workers\//, ""));
      const toRoom = imp.to.startsWith("gpu-worker/")
        ? "gpu-worker/"
        : roomOf(imp.to.replace(/^workers\//, ""));
      if (fromRoom === toRoom) continue;
      const key = `${fromRoom} -> ${toRoom}`;
      edges.set(key, (edges.get(key) ?? 0) + 1);
    }
    for (const [edge, count] of [...edges].sort()) console.log(`${edge}  ${count}`);
    return 0;
  }
  const floors = readFloors(readFileSync(join(resolve("."), "docs/architecture.md"), "utf8"));
  const violations = checkLayers(imports, floors);
  for (const v of violations) console.error(`${v.from}:${v.line}  ${v.to}\n    ${v.why}`);
  if (violations.length > 0) {
    console.error(
      `check-layers: ${violations.length} value import(s) against the floors of docs/architecture.md`,
    );
    return 1;
  }
  console.log(
    `check-layers: ${imports.length} imports of workers/, every one down the floors of docs/architecture.md`,
  );
  return 0;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename ?? ""))
  process.exit(main(process.argv.slice(2)));
