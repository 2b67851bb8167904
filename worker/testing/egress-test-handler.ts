/**
 * Test only: the outbound handler a test workspace's container is handed to
 * (interceptAllOutboundHttp, interceptOutboundHttps("*")). It answers hosts
 * under `egress.test` itself, with what it received, and refuses every other
 * host; it never fetches anything, so a test reaches no outside address.
 */
import { WorkerEntrypoint } from "cloudflare:workers";

export const TEST_EGRESS_DOMAIN = "egress.test";

export class EgressTestHandler extends WorkerEntrypoint<Env> {
  override async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (url.hostname !== TEST_EGRESS_DOMAIN && !url.hostname.endsWith(`.${TEST_EGRESS_DOMAIN}`)) {
      return new Response(`the test handler answers only *.${TEST_EGRESS_DOMAIN}, not ${url.hostname}\n`, {
        status: 403,
      });
    }
    return Response.json({
      handledBy: "EgressTestHandler",
      method: request.method,
      url: request.url,
      body: await request.text(),
    });
  }
}
