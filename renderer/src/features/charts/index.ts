/** What other views use from Charts: a source's server names. */
export { serverNames, useServerNames } from './names';
