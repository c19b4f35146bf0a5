/**
 * MCP Apps: what the sandbox proxy page (served by main's carriers) and the renderer's bridge
 * transport agree on. Plain constants, no schema: the proxy is a script in another origin and
 * the transport checks each message itself.
 */

/** The proxy's and the app frame's diagnostic reports (console, uncaught errors, CSP): logged, never given to the bridge. */
export const APP_DIAGNOSTIC_METHOD = 'switchboard/diagnostic';

/**
 * The proxy's report of app messages it dropped over the budget: `params: { dropped, first }`
 * (how many since the last report; the first one's method). Only the proxy sends it: an app
 * message with this method is not relayed.
 */
export const APP_OVER_BUDGET_METHOD = 'switchboard/over-budget';

/**
 * What an app may send to the host: a token bucket of `burst` messages refilled at `perSecond`.
 * The proxy applies it in the sandbox's process (so a runaway loop is not carried message by
 * message on to Switchboard's page) and reports what it drops at most once per `reportEvery`
 * dropped or `reportMs`; the host's transport applies it again to what arrives.
 */
export const APP_BRIDGE_BUDGET = { burst: 1_000, perSecond: 300, reportEvery: 1_000, reportMs: 100 } as const;
