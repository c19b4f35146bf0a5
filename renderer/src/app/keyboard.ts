/** Global keys: `/` focuses the search box of the view on screen (Ctrl/Cmd+K and Ctrl/Cmd+Shift+P open the command palette: its own). */
import { useEffect } from 'react';

export function useGlobalKeys(): void {
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== '/' || event.ctrlKey || event.metaKey || event.altKey) return;
      const target = event.target as HTMLElement | null;
      if (target && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName))) return;
      const search = document.querySelector<HTMLInputElement>('[role="tabpanel"]:not([hidden]) [data-search-input], [data-search-input]');
      if (search) {
        event.preventDefault();
        search.focus();
        search.select();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
}
