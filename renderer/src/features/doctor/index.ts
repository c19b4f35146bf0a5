export { DoctorPanel } from './DoctorPanel';
