import { orMaintenance } from "../../../accounts/unavailable";
import { deleteSession as deleteSessionRow } from "../../../stores/sessions";
import { endpoint } from "../../define";
import { clearSessionCookie } from "./cookie";

/** DELETE /v1/console/session: signs out (the session is deleted; the cookie cleared). */
export const deleteSession = endpoint(
  {
    method: "delete",
    path: "/v1/console/session",
    operationId: "deleteSession",
    summary: "Sign out",
    auth: "session+csrf",
    responses: { 204: { description: "Signed out." } },
    errors: [],
  },
  async function deleteSessionHandler(c) {
    await orMaintenance("sessions", () => deleteSessionRow(c.var.db, c.var.session.tokenSha256));
    clearSessionCookie(c);
    return c.body(null, 204);
  },
);
