// The edge's log line is shared with the GPU worker (schema/log-line.ts).
export { errorText, type LogFields, type LogLevel, logEvent } from "../../schema/log-line";
