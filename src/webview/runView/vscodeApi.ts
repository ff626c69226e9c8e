// The webview side of postMessage and setState, typed with the shared protocol.
import type { FromWebview, RunViewPersistedState } from '../../protocol/webviewMessages';

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

export interface RunViewHost {
  post(message: FromWebview): void;
  persisted(): Partial<RunViewPersistedState>;
  persist(patch: Partial<RunViewPersistedState>): void;
}

/** `acquireVsCodeApi` may be called only once per load, so the view shares this one host. */
export function connectToHost(): RunViewHost {
  const api = acquireVsCodeApi();
  let saved = (api.getState() ?? {}) as Partial<RunViewPersistedState>;
  return {
    post: (message) => api.postMessage(message),
    persisted: () => saved,
    persist(patch) {
      saved = { ...saved, ...patch };
      api.setState(saved);
    },
  };
}
