/**
 * The help text of the commands that judge a server (#16): conformance, doctor, check. Apart from
 * the commands, so the CLI's help lists them without loading them (run.ts imports each command
 * only when it runs: they bring the conformance runner, the tokenizer, Ajv…).
 */

export const CONFORMANCE_HELP = `  switchboard conformance --url URL [--header "K: V"]... | --stdio "CMD ARGS"  [--scenario S]... [--json] [--junit FILE] [--data-dir DIR]
                     the official conformance suite's server scenarios against a server (stdio: through a
                     stdio→HTTP bridge), through a recording proxy (needs Node 22+: tools/node-runtime; see README "Conformance").
                     Scenarios whose test tools/resources/prompts the server lacks are "not applicable".
                     Exit: 0 all passed or not applicable, 1 a check failed, 2 usage, 4 server unreachable,
                     7 the runner could not run (no Node 22, a broken install), 130 cancelled (Ctrl-C)`;

export const DOCTOR_HELP = `  switchboard doctor URL | --stdio "CMD ARGS" | --config FILE [--server NAME]
                     [--header "K: V"]... [--transport auto|streamable-http|sse] [--timeout 5s] [--json]
                     walks a connection step by step (DNS, TCP, TLS, HTTP, content type, OAuth metadata,
                     both protocol eras, the lists, the GET stream; stdio: command, start, stdout, exit,
                     stderr) and names the first step that fails with what to try.
                     Exit codes: 0 healthy (no step failed; warnings allowed), 1 a step failed, 2 usage.`;

export const CHECK_HELP = `  switchboard check  --config FILE [--expect FILE] [--junit FILE] [--json] [--data-dir DIR]
                     a CI gate: connect, list, validate schemas, lint tools, token cost, and the
                     expectations file (tools present/absent, latency budgets, a pinned baseline);
                     exit 0 passed, 1 a check failed, 2 usage/config, 3 sign-in needed, 4 unreachable`;
