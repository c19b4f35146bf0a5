/**
 * The names of every contract method and event, with no dependencies.
 *
 * The preload script imports only this file (a sandboxed preload should stay tiny);
 * `contract/index.ts` checks at compile time that its schemas cover exactly these names.
 */
export const METHOD_NAMES = [
  'appInfo',
  'listServers',
  'addServer',
  'removeServer',
  'connectServer',
  'disconnectServer',
  'listTools',
  'callTool',
  'recentLogs',
  'traceQuery',
  'traceEvent',
  'snapshots',
  'updateServer',
  'duplicateServer',
  'testServer',
  'listPrompts',
  'listResources',
  'toolCollisions',
  'importServers',
  'exportServers',
  'discoverConfigs',
  'readConfigFile',
  'listAudit',
  'cancelCall',
  'listHistory',
  'listSavedCalls',
  'saveCall',
  'deleteSavedCall',
  'lastToolInput',
  'getPrompt',
  'readResource',
  'complete',
  'subscribeResource',
  'setLogLevel',
  'traceExport',
  'traceImport',
  'listPendingRequests',
  'answerRequest',
  'setRoots',
  'openExternal',
  'getSettings',
  'updateSettings',
  'runToolAsTask',
  'getTask',
  'taskResult',
  'cancelTask',
  'listTasks',
  'authStatus',
  'signIn',
  'signOut',
  'cancelSignIn',
  'pendingSignIns',
  'authStepMode',
  'authContinue',
  'serverInfo',
  'connectAll',
  'disconnectAll',
  'appOpen',
  'appClose',
  'appTrace',
  'appLog',
] as const;

export const EVENT_NAMES = ['serverState', 'logBatch', 'traceBatch', 'snapshot', 'callProgress', 'resourceUpdated', 'requestPending', 'requestResolved', 'elicitationComplete', 'taskStatus', 'authChanged', 'signInPrompt', 'signInEnded', 'resync'] as const;

export type MethodName = (typeof METHOD_NAMES)[number];
export type EventName = (typeof EVENT_NAMES)[number];

/** The Electron IPC channel that carries a method or an event. */
export const ipcChannel = (name: MethodName | EventName): string => `switchboard:${name}`;
