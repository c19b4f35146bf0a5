/** Signing in to servers (OAuth): the Auth view, the browser-mode prompt, and the sign-in action other views use. */
export { AuthView } from './AuthView';
export { SignInPrompts, useSignInAction } from './SignInPrompts';
export { useSignIns } from './sign-in-store';
