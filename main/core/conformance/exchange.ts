/**
 * Which recorded event decided a check: the runner's client talks through Switchboard's recording
 * proxy, one scenario at a time, so a scenario's events are those in its time window. Within it,
 * the request the scenario is about (its `decides` in needs.ts: method, and the tool/prompt name
 * or resource URI it names), matched to its answer by JSON-RPC id and session. The answer is what
 * a failing check points at; an HTTP error status on that exchange, or no answer at all, points
 * at the HTTP response or the request itself.
 */
import type { TraceEvent } from '../../../contract/trace';
import type { ScenarioNeeds } from './needs';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function paramsOf(event: TraceEvent): Record<string, unknown> | undefined {
  const body = event.body;
  const message = Array.isArray(body) ? body.find((m) => isObject(m) && m.id === event.rpc?.id) : body;
  return isObject(message) && isObject(message.params) ? message.params : undefined;
}

function namesIt(event: TraceEvent, decides: NonNullable<ScenarioNeeds['decides']>): boolean {
  if (event.rpc?.method !== decides.method) return false;
  if (!decides.name && !decides.uri) return true;
  const params = paramsOf(event);
  if (!params) return true; // a body too large to keep: the method has to do
  return decides.name ? params.name === decides.name : params.uri === decides.uri;
}

/**
 * The answer to a request: the first message in with its id, in the same HTTP exchange (a POST
 * answered as JSON or as an SSE stream), else in the same session (an answer on the GET stream).
 */
function answerTo(events: TraceEvent[], request: TraceEvent): TraceEvent | undefined {
  const id = request.rpc?.id;
  if (id === undefined) return undefined;
  const answers = events.filter((e) => e.seq > request.seq && e.dir === 'in' && (e.rpc?.kind === 'result' || e.rpc?.kind === 'error') && e.rpc.id === id);
  return answers.find((e) => request.exchange !== undefined && e.exchange === request.exchange) ?? answers.find((e) => request.session !== undefined && e.session === request.session);
}

/**
 * The seq to show for a scenario's failing checks, among its window's events (in seq order).
 * Undefined when the window holds nothing of the scenario (it ran directly, or nothing was recorded).
 */
export function decidingSeq(events: TraceEvent[], decides: ScenarioNeeds['decides']): number | undefined {
  if (events.length === 0) return undefined;
  if (decides) {
    const requests = events.filter((e) => e.dir === 'out' && e.rpc?.kind === 'request' && namesIt(e, decides));
    // The last such request: a scenario connects first (initialize, list) and then asks what it is about.
    const request = requests.at(-1);
    if (request) {
      const answer = answerTo(events, request);
      if (answer) return answer.seq;
      const response = request.exchange ? events.find((e) => e.exchange === request.exchange && e.kind === 'http-response') : undefined;
      return response?.seq ?? request.seq;
    }
  }
  // Nothing names the request (it never went out, or the scenario speaks raw HTTP): the first error, else the first request.
  const error = events.find((e) => (e.kind === 'http-response' && (e.http?.status ?? 0) >= 400) || e.rpc?.kind === 'error' || (e.kind === 'error' && e.channel !== 'lifecycle'));
  return (error ?? events.find((e) => e.dir === 'out' && e.rpc?.kind === 'request') ?? events[0])!.seq;
}
