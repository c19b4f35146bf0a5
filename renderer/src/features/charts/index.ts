/** What other views use from Charts: a source's server names. */
export { serverNames } from './names';
