/** What other views use from the server list: connect or disconnect every server. */
export { bulkConnect } from './bulk-connect';
