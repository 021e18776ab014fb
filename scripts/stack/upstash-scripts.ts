import { createHash } from "node:crypto";

const FLAGS_LINE = /^#!lua[^\n]*\n/;

/**
 * Open-source Redis 7.0 rejects the `#!lua flags=allow-key-locking` shebang that @upstash/ratelimit
 * sends; strip it and remember sha1(original) → sha1(stripped) so the client's EVALSHA still hits.
 */
export class ScriptRewriter {
  private readonly shas = new Map<string, string>();

  /** Rewrites EVAL / EVAL_RO / SCRIPT LOAD bodies and EVALSHA / EVALSHA_RO hashes; other commands pass. */
  rewrite(args: string[]): string[] {
    const name = (args[0] ?? "").toUpperCase();
    if ((name === "EVAL" || name === "EVAL_RO") && args[1] !== undefined) {
      return [args[0]!, this.strip(args[1]), ...args.slice(2)];
    }
    if (name === "SCRIPT" && (args[1] ?? "").toUpperCase() === "LOAD" && args[2] !== undefined) {
      return [args[0]!, args[1]!, this.strip(args[2]), ...args.slice(3)];
    }
    if ((name === "EVALSHA" || name === "EVALSHA_RO") && args[1] !== undefined) {
      return [args[0]!, this.shas.get(args[1].toLowerCase()) ?? args[1], ...args.slice(2)];
    }
    return args;
  }

  private strip(script: string): string {
    if (!FLAGS_LINE.test(script)) return script;
    const stripped = script.replace(FLAGS_LINE, "");
    this.shas.set(sha1(script), sha1(stripped));
    return stripped;
  }
}

function sha1(text: string): string {
  return createHash("sha1").update(text).digest("hex");
}
