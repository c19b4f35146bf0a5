/**
 * Electron's FileDialogs (main/adapters/electron/file-dialogs.ts) against a fake `dialog` that
 * records what it was asked (Electron cannot run here): the save dialog starts in the save
 * folder with the export's name, both are modal to a live window and free-standing without one,
 * and a cancelled dialog answers undefined.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { electronFileDialogs, type DialogLike } from '../../main/adapters/electron/file-dialogs';

function fakeDialog(answers: { save?: { canceled: boolean; filePath: string }; open?: { canceled: boolean; filePaths: string[] } }) {
  const calls: { kind: 'save' | 'open'; window?: unknown; options: Record<string, unknown> }[] = [];
  const record =
    (kind: 'save' | 'open') =>
    async (...args: unknown[]) => {
      const [window, options] = args.length === 2 ? args : [undefined, args[0]];
      calls.push({ kind, window, options: options as Record<string, unknown> });
      return kind === 'save' ? answers.save : answers.open;
    };
  return { dialog: { showSaveDialog: record('save'), showOpenDialog: record('open') } as unknown as DialogLike, calls };
}

const window = (destroyed = false) => ({ isDestroyed: () => destroyed }) as never;
const filters = [{ name: 'Switchboard trace (JSONL)', extensions: ['jsonl'] }];

describe('Electron file dialogs', () => {
  it('save: starts in the save folder with the export’s name, modal to the window; answers the chosen path', async () => {
    const parent = window();
    const { dialog, calls } = fakeDialog({ save: { canceled: false, filePath: '/home/me/out.jsonl' } });
    const dialogs = electronFileDialogs({ dialog, parent: () => parent, saveFolder: () => '/home/me/Downloads' });
    expect(await dialogs.save({ defaultName: 'switchboard-x.jsonl', filters })).toBe('/home/me/out.jsonl');
    expect(calls).toEqual([{ kind: 'save', window: parent, options: expect.objectContaining({ defaultPath: join('/home/me/Downloads', 'switchboard-x.jsonl'), filters, properties: expect.arrayContaining(['showOverwriteConfirmation']) }) }]);
  });

  it('save: cancelled, or an empty path, answers undefined; without a live window the dialog stands alone', async () => {
    const { dialog, calls } = fakeDialog({ save: { canceled: true, filePath: '' } });
    const dialogs = electronFileDialogs({ dialog, parent: () => window(true), saveFolder: () => '/tmp' });
    expect(await dialogs.save({ defaultName: 'a.har', filters })).toBeUndefined();
    expect(calls[0]!.window).toBeUndefined();
    const empty = fakeDialog({ save: { canceled: false, filePath: '' } });
    expect(await electronFileDialogs({ dialog: empty.dialog, parent: () => null, saveFolder: () => '/tmp' }).save({ defaultName: 'a.har', filters })).toBeUndefined();
  });

  it('open: one file only, with the filters; answers its path, or undefined when cancelled', async () => {
    const parent = window();
    const picked = fakeDialog({ open: { canceled: false, filePaths: ['/data/trace.jsonl'] } });
    const dialogs = electronFileDialogs({ dialog: picked.dialog, parent: () => parent, saveFolder: () => '/tmp' });
    expect(await dialogs.open({ filters })).toBe('/data/trace.jsonl');
    expect(picked.calls[0]).toEqual({ kind: 'open', window: parent, options: expect.objectContaining({ filters, properties: ['openFile'] }) });
    const cancelled = fakeDialog({ open: { canceled: true, filePaths: [] } });
    expect(await electronFileDialogs({ dialog: cancelled.dialog, parent: () => parent, saveFolder: () => '/tmp' }).open({ filters })).toBeUndefined();
  });
});
