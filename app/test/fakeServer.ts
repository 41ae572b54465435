// A fake /api at the network edge: the real core calls it through fetch.
import { vi } from "vitest";

export interface Call {
  method: string;
  url: string;
  auth: string | null;
  body: unknown;
}

interface Answer {
  status?: number;
  statusText?: string;
  body?: unknown;
}
type Reply = Answer | Promise<Answer>;
type Handler = (call: Call) => Reply | undefined;

export function json(body: unknown, status = 200, statusText = "OK"): Answer {
  return { status, statusText, body };
}

/** Installs a fake fetch; `handler` answers each call (404 when it returns undefined). */
export function fakeServer(handler: Handler) {
  const calls: Call[] = [];
  vi.stubGlobal("fetch", async (request: Request) => {
    const text = await request.text();
    const call = {
      method: request.method,
      url: request.url,
      auth: request.headers.get("authorization"),
      body: text ? JSON.parse(text) : undefined,
    };
    calls.push(call);
    const reply = (await handler(call)) ?? { status: 404, statusText: "Not Found", body: {} };
    return new Response(JSON.stringify(reply.body ?? {}), {
      status: reply.status ?? 200,
      statusText: reply.statusText ?? "OK",
      headers: { "content-type": "application/json" },
    });
  });
  return calls;
}

/** A reply that waits until `release()` is called. */
export function deferred(reply: Answer) {
  let release!: () => void;
  const promise = new Promise<Answer>((resolve) => {
    release = () => resolve(reply);
  });
  return { promise, release };
}
