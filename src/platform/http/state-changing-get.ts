/**
 * Route options of a GET that changes state (the seeds put custom pages' duplicate and
 * send_to_top and subscription orders' authorize_paypal on GET). Fastify answers HEAD on every
 * GET route by running its handler, but HEAD is a safe method (RFC 9110 §9.2.1) that crawlers,
 * link checkers and proxies send freely: these routes have no HEAD, which is then a 404.
 */
export const stateChangingGet = { exposeHeadRoute: false } as const;
