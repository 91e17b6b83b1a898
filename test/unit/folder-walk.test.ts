/**
 * Walking a dropped folder (src/core/user-model/folder-walk.ts) over a fake entry tree shaped like the File and
 * Directory Entries API (Playwright cannot synthesize a dropped directory): every batch of a reader is read until an
 * empty one, paths follow the tree, and a hostile tree (a name that is not a file name, too deep, too many entries,
 * an entry that fails) ends the walk with one line that names nothing of the user's.
 */
import { describe, expect, it } from 'vitest';
import {
  walkDroppedEntries,
  type DroppedDirectoryEntry,
  type DroppedEntry,
  type DroppedFileEntry,
} from '../../src/core/user-model/folder-walk.ts';
import { recogniseUserModel } from '../../src/core/user-model/user-model-files.ts';

/** A fake file: what `file()` hands over is the path it was made with, so a test can tell which one came. */
function file(name: string, contents = name, fail = false): DroppedFileEntry<string> {
  return {
    name,
    isFile: true,
    isDirectory: false,
    file: (ok, bad) => setTimeout(() => (fail ? bad?.(new DOMException('gone', 'NotFoundError')) : ok(contents))),
  };
}

/** A fake folder whose reader answers `batchSize` entries a call, then an empty batch (as Chromium's, 100 a call). */
function dir(name: string, children: DroppedEntry[], batchSize = 2, log?: number[]): DroppedDirectoryEntry {
  return {
    name,
    isFile: false,
    isDirectory: true,
    createReader: () => {
      let at = 0;
      return {
        readEntries: (ok) =>
          setTimeout(() => {
            const batch = children.slice(at, at + batchSize);
            at += batch.length;
            log?.push(batch.length);
            ok(batch);
          }),
      };
    },
  };
}

const LAYOUT = ['config.json', 'tokenizer.json', 'tokenizer_config.json'];

describe('walkDroppedEntries', () => {
  it('walks a dropped model folder through every batch of every reader, with paths from the dropped root', async () => {
    const batches: number[] = [];
    const tree = dir(
      'acme-secret-model',
      [
        ...LAYOUT.map((f) => file(f)),
        dir('onnx', [file('model.onnx'), file('model.onnx_data'), file('model_q4.onnx')], 2, batches),
      ],
      2,
      batches,
    );
    const walked = await walkDroppedEntries<string>([tree]);
    if ('problem' in walked) throw new Error(walked.problem);
    expect(walked.files.map((f) => f.path)).toEqual([
      'acme-secret-model/config.json',
      'acme-secret-model/tokenizer.json',
      'acme-secret-model/tokenizer_config.json',
      'acme-secret-model/onnx/model.onnx',
      'acme-secret-model/onnx/model.onnx_data',
      'acme-secret-model/onnx/model_q4.onnx',
    ]);
    expect(walked.files.map((f) => f.file)).toEqual([...LAYOUT, 'model.onnx', 'model.onnx_data', 'model_q4.onnx']);
    // Root: 4 entries in batches of 2; its second batch holds onnx/, walked before the root's empty batch: 2 + 1, then
    // its empty batch.
    expect(batches).toEqual([2, 2, 2, 1, 0, 0]);
    // What the walk gives is what a folder pick gives: the dropped folder's name is the user's and is dropped.
    const model = recogniseUserModel(walked.files.map((f) => ({ path: f.path, bytes: 1 })));
    expect(model).toMatchObject({ kind: 'transformers', dtypes: ['fp32', 'q4'] });
    expect(JSON.stringify(model)).not.toContain('acme');
  });

  it('dropped files (no folder) keep their bare names; a non-entry item is skipped; an empty folder gives nothing', async () => {
    const walked = await walkDroppedEntries<string>([
      file('graph.onnx'),
      null,
      file('graph.onnx_data'),
      dir('empty', []),
    ]);
    expect(walked).toEqual({
      files: [
        { path: 'graph.onnx', file: 'graph.onnx' },
        { path: 'graph.onnx_data', file: 'graph.onnx_data' },
      ],
    });
  });

  it('refuses a name that is not a plain file name, naming nothing', async () => {
    for (const name of ['', '.', '..', 'a/b', 'a\\b', 'nul\u0000.onnx']) {
      const walked = await walkDroppedEntries<string>([dir('acme', [file('config.json'), file(name)])]);
      expect(walked).toEqual({ problem: 'a dropped file or folder has a name that is not a plain file name' });
    }
    expect(await walkDroppedEntries<string>([dir('..', [file('model.onnx')])])).toHaveProperty('problem');
  });

  it('stops at the depth limit and at the entry limit (a reader that never runs dry ends too)', async () => {
    let deep: DroppedEntry = file('model.onnx');
    for (let i = 0; i < 4; i++) deep = dir(`level-${i}`, [deep]);
    expect(await walkDroppedEntries<string>([deep], { maxDepth: 3, maxFiles: 100 })).toEqual({
      problem: 'the dropped folder is nested more than 3 levels deep',
    });
    expect(await walkDroppedEntries<string>([deep], { maxDepth: 4, maxFiles: 100 })).toMatchObject({
      files: [{ path: 'level-3/level-2/level-1/level-0/model.onnx' }],
    });

    const many = dir(
      'acme',
      Array.from({ length: 12 }, (_, i) => file(`f${i}.bin`)),
      5,
    );
    expect(await walkDroppedEntries<string>([many], { maxDepth: 8, maxFiles: 10 })).toEqual({
      problem: 'the drop holds more than 10 files and folders; a model folder here holds at most 10',
    });
    // A hostile reader that answers folders forever: the entry count ends it.
    const endless: DroppedDirectoryEntry = {
      name: 'loop',
      isFile: false,
      isDirectory: true,
      createReader: () => ({
        readEntries: (ok) =>
          setTimeout(() =>
            ok([
              {
                name: 'x',
                isFile: false,
                isDirectory: true,
                createReader: endless.createReader,
              } as DroppedDirectoryEntry,
            ]),
          ),
      }),
    };
    expect(await walkDroppedEntries<string>([endless], { maxDepth: 1000, maxFiles: 50 })).toHaveProperty('problem');
  });

  it('a file or folder that cannot be read ends the walk with one line naming neither', async () => {
    expect(
      await walkDroppedEntries<string>([dir('acme', [file('config.json'), file('secret.onnx', '', true)])]),
    ).toEqual({
      problem: 'a dropped file could not be read (NotFoundError)',
    });
    const unlistable: DroppedDirectoryEntry = {
      name: 'acme',
      isFile: false,
      isDirectory: true,
      createReader: () => ({
        readEntries: (_ok, bad) => setTimeout(() => bad?.(new DOMException('denied', 'SecurityError'))),
      }),
    };
    expect(await walkDroppedEntries<string>([unlistable])).toEqual({
      problem: 'a dropped folder could not be listed (SecurityError)',
    });
  });
});
