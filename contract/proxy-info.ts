/** A proxied session's description, as its proxy writes it into its recording's meta (#12). No imports but zod: recordings.ts and proxy.ts both use it. */
import { z } from 'zod';

/** What a proxy writes into its recording's meta (`proxy`), and updates as it learns (the client). */
export const ProxyInfo = z.object({
  /** `--name`. */
  name: z.string().min(1).max(200),
  transport: z.enum(['stdio', 'http']),
  /** stdio: the command line (secrets redacted); http: the upstream URL (credentials redacted). */
  target: z.string().max(8192),
  /** http: the URL a client connects to (`http://127.0.0.1:N/…`). */
  listen: z.string().max(2048).optional(),
  pid: z.number().int(),
  /** From the client's `initialize` (`clientInfo`) or, stateless, its first request's `_meta`. */
  client: z.object({ name: z.string().max(200), version: z.string().max(200).optional() }).optional(),
  /** The protocol version the two agreed on, once known. */
  protocolVersion: z.string().max(50).optional(),
});
export type ProxyInfo = z.output<typeof ProxyInfo>;
