/** The request center (elicitation, sampling, roots) and what other views may use from it. */
export { RequestBadge, RequestCenter, showRequest } from './RequestCenter';
export { UrlElicitationRequired, isUrlElicitationRequired } from './UrlElicitationRequired';
export { parseUrlElicitationRequired, inspectUrl, openConsented } from './url-elicitation';
export { getRequestStore, useRequests } from './store';
