/** Signing in to servers (OAuth): the browser-mode prompt, and the sign-in action other views use. */
// The Auth view is not exported here: the app shell loads it lazily from its file (React.lazy),
// so importing this barrel (for the prompt) never pulls the view into the first script.
export { SignInPrompts, useSignInAction } from './SignInPrompts';
export { useSignIns } from './sign-in-store';
