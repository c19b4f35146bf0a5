export { ProxySessions } from './ProxySessions';
