/**
 * One place that owns sign-in for every server: the secret store, the login window, and one
 * OAuth provider per server (rebuilt when its URL or client settings change, since those make
 * a different identity).
 */
import type { ServerConfig } from '../../../contract';
import type { TraceEventInput } from '../../../contract/trace';
import type { Redactor } from '../trace/redact';
import type { LoginWindow } from './login';
import { oauthIdentity, SwitchboardOAuthProvider } from './oauth-provider';
import type { SecretStore } from './secret-store';

export interface AuthServiceOptions {
  store: SecretStore;
  login: LoginWindow | undefined;
  record: (event: TraceEventInput) => void;
  /** A server's sign-in state changed (for the UI). */
  onChange?: (serverId: string) => void;
  loginTimeoutMs?: number;
  refreshLeewayMs?: number;
}

export class AuthService {
  private readonly providers = new Map<string, SwitchboardOAuthProvider>();

  constructor(private readonly options: AuthServiceOptions) {}

  get store(): SecretStore {
    return this.options.store;
  }

  /** Whether a server's requests go through OAuth: HTTP, not turned off, no Authorization header of its own. */
  static applies(config: ServerConfig): boolean {
    const { target } = config;
    if (target.type !== 'http' || target.oauth?.disabled) return false;
    return !Object.keys(target.headers).some((name) => name.toLowerCase() === 'authorization');
  }

  /** The provider for a server's current configuration (the same object while its identity holds). */
  providerFor(config: ServerConfig, redactor: Redactor): SwitchboardOAuthProvider | undefined {
    if (!AuthService.applies(config) || config.target.type !== 'http') return undefined;
    const settings = config.target.oauth ?? {};
    const identity = oauthIdentity(config.target.url, settings);
    const existing = this.providers.get(config.id);
    if (existing?.identity === identity) return existing;
    const provider = new SwitchboardOAuthProvider({
      serverId: config.id,
      serverName: config.name,
      serverUrl: config.target.url,
      settings,
      store: this.options.store,
      login: this.options.login,
      redactor,
      record: this.options.record,
      onChange: () => this.options.onChange?.(config.id),
      loginTimeoutMs: this.options.loginTimeoutMs,
      refreshLeewayMs: this.options.refreshLeewayMs,
    });
    this.providers.set(config.id, provider);
    return provider;
  }

  provider(serverId: string): SwitchboardOAuthProvider | undefined {
    return this.providers.get(serverId);
  }

  forget(serverId: string): void {
    this.providers.get(serverId)?.cancel();
    this.providers.delete(serverId);
  }
}
