/**
 * The core's `FileDialogs` port in Electron: the native save and open dialogs, shown by main
 * (attached to the app's window when there is one). Only a path comes back; the core streams
 * the trace to or from that path itself, so no file's bytes ever cross IPC (#13 item 3).
 * Written against Electron's `dialog` API through a narrow structural type, so a Node test can
 * hand it a fake.
 */
import type { BaseWindow, OpenDialogOptions, OpenDialogReturnValue, SaveDialogOptions, SaveDialogReturnValue } from 'electron';
import { join } from 'node:path';
import type { FileDialogs } from '../../core/handlers/context';

/** The part of Electron's `dialog` used here. */
export interface DialogLike {
  showSaveDialog(window: BaseWindow, options: SaveDialogOptions): Promise<SaveDialogReturnValue>;
  showSaveDialog(options: SaveDialogOptions): Promise<SaveDialogReturnValue>;
  showOpenDialog(window: BaseWindow, options: OpenDialogOptions): Promise<OpenDialogReturnValue>;
  showOpenDialog(options: OpenDialogOptions): Promise<OpenDialogReturnValue>;
}

export interface ElectronFileDialogOptions {
  dialog: DialogLike;
  /** The window a dialog belongs to (modal to it); none: a free-standing dialog. */
  parent: () => BaseWindow | null | undefined;
  /** Where a save dialog starts (Electron's `app.getPath('downloads')`), asked each time. */
  saveFolder: () => string;
}

export function electronFileDialogs({ dialog, parent, saveFolder }: ElectronFileDialogOptions): FileDialogs {
  const live = () => {
    const window = parent();
    return window && !window.isDestroyed() ? window : undefined;
  };
  return {
    save: async ({ defaultName, filters }) => {
      const options: SaveDialogOptions = {
        title: 'Export the trace',
        defaultPath: join(saveFolder(), defaultName),
        filters,
        properties: ['createDirectory', 'showOverwriteConfirmation'],
      };
      const window = live();
      const answer = window ? await dialog.showSaveDialog(window, options) : await dialog.showSaveDialog(options);
      return answer.canceled || !answer.filePath ? undefined : answer.filePath;
    },
    open: async ({ filters }) => {
      const options: OpenDialogOptions = { title: 'Open a trace', filters, properties: ['openFile'] };
      const window = live();
      const answer = window ? await dialog.showOpenDialog(window, options) : await dialog.showOpenDialog(options);
      return answer.canceled ? undefined : answer.filePaths[0];
    },
  };
}
