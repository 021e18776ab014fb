import type { SessionRow } from "../stores/sessions";

/** The signed-in caller of a console route. */
export type ConsoleSession = SessionRow;
