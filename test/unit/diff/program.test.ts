/**
 * kubectl's diff program (src/diff/program.ts): KUBECTL_EXTERNAL_DIFF's words (the program, then only
 * words of letters, digits, `-` and `=`, after the two dirs), the program looked up on PATH as Go's
 * LookPath does, kubectl's messages for a missing or failing program, and what the trees hold: every
 * file for an external program, only the differing ones for diff -u -N, an object given twice once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { diffCommand, DiffProgramError, findProgram, unifiedDiff } from '../../../src/diff/program.js';
import type { ObjectDiff } from '../../../src/diff/diff.js';

test('the command: diff -u -N by default; KUBECTL_EXTERNAL_DIFF split at single spaces, odd words dropped', () => {
  assert.deepEqual(diffCommand({}), { program: 'diff', before: ['-u', '-N'], after: [] });
  assert.deepEqual(diffCommand({ KUBECTL_EXTERNAL_DIFF: '' }), { program: 'diff', before: ['-u', '-N'], after: [] });
  assert.deepEqual(diffCommand({ KUBECTL_EXTERNAL_DIFF: 'colordiff -N  -u --x=1 a/b $HOME' }), { program: 'colordiff', before: [], after: ['-N', '-u', '--x=1'] });
});

test('the program on PATH, or kubectl\'s error', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kdyn-diff-prog-'));
  try {
    const tool = join(dir, 'mydiff');
    writeFileSync(tool, '#!/bin/sh\nexit 0\n');
    chmodSync(tool, 0o755);
    assert.equal(await findProgram({ program: 'mydiff', before: [], after: [] }, { PATH: `/nonexistent:${dir}` }), tool);
    assert.equal(await findProgram({ program: tool, before: [], after: [] }, { PATH: '' }), tool);
    await assert.rejects(findProgram({ program: 'diff', before: [], after: [] }, { PATH: dir }), (e: unknown) => e instanceof DiffProgramError && e.message === 'failed to run "diff": executable file not found in $PATH');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

const obj = (name: string, live: string, merged: string): ObjectDiff => ({ name, live: {}, merged: {}, action: live === merged ? 'unchanged' : 'changed', differs: live !== merged, texts: { live, merged } });

test('the trees: only differing files for diff -u -N, every file for an external program; an object twice: its last version', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kdyn-diff-trees-'));
  try {
    // The "program" lists both trees and what the changed file holds.
    const lister = join(dir, 'lister');
    writeFileSync(lister, '#!/bin/sh\nls "$1"; echo --; ls "$2"; echo --; cat "$2/v1.ConfigMap.n.b"; exit 1\n');
    chmodSync(lister, 0o755);
    const objects = [obj('v1.ConfigMap.n.a', 'x\n', 'x\n'), obj('v1.ConfigMap.n.b', 'y\n', 'z\n'), obj('v1.ConfigMap.n.b', 'y\n', 'w\n')];
    writeFileSync(join(dir, 'keep'), '');
    const r = await unifiedDiff(objects, { env: { PATH: process.env.PATH, TMPDIR: dir, KUBECTL_EXTERNAL_DIFF: lister } });
    assert.deepEqual(r, { exitCode: 1, stdout: 'v1.ConfigMap.n.a\nv1.ConfigMap.n.b\n--\nv1.ConfigMap.n.a\nv1.ConfigMap.n.b\n--\nw\n', stderr: '' });
    const own = await unifiedDiff(objects, { env: { PATH: process.env.PATH, TMPDIR: dir } });
    assert.equal(own.exitCode, 1);
    assert.match(own.stdout, /^diff -u -N \S+\/LIVE-\d+\/v1\.ConfigMap\.n\.b \S+\/MERGED-\d+\/v1\.ConfigMap\.n\.b\n/);
    assert.doesNotMatch(own.stdout, /n\.a/);
    assert.deepEqual(readdirSync(dir).sort(), ['keep', 'lister'], 'the trees are removed');
    const failing = join(dir, 'failing');
    writeFileSync(failing, '#!/bin/sh\necho out; echo err >&2; exit 4\n');
    chmodSync(failing, 0o755);
    await assert.rejects(unifiedDiff(objects, { env: { PATH: process.env.PATH, TMPDIR: dir, KUBECTL_EXTERNAL_DIFF: failing } }), (e: unknown) => e instanceof DiffProgramError && e.message === `failed to run "${failing}": exit status 4` && e.stdout === 'out\n' && e.stderr === 'err\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
