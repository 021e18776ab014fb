import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";

/**
 * A request listener for a local server whose handler may reject: a body cut off because the caller aborted
 * (`Error: aborted`), a backend that failed. Node ignores the promise an async listener returns, so such a
 * rejection would be unhandled and end the process that hosts the server (`npm start`, or the test runner whose
 * global setup runs the stack). Here it becomes a 500 when nothing was sent yet, else the socket is closed.
 */
export function guarded(
  handler: (req: IncomingMessage, res: ServerResponse) => unknown | Promise<unknown>,
): RequestListener {
  return (req, res) => {
    Promise.resolve()
      .then(() => handler(req, res))
      .catch((error: unknown) => {
        if (res.headersSent || req.destroyed) {
          res.destroy();
          return;
        }
        res
          .writeHead(500, { "content-type": "application/json" })
          .end(JSON.stringify({ error: "internal", message: String(error) }));
      });
  };
}
