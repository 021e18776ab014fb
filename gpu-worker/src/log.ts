// The GPU worker writes the edge's log line (schema/log-line.ts).
export { errorText, type LogLevel, logEvent } from "../../schema/log-line";
