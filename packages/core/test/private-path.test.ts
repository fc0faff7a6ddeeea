import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isPrivatePath, PRIVATE_NAMES } from '../src/tools/private-path.js';

const root = '/project';
const isPrivate = (relative: string) => isPrivatePath([root], `${root}/${relative}`);

describe('private paths', () => {
  it('cover credentials at any depth and in any case, and what lies below a private folder', () => {
    for (const file of [
      '.env',
      '.Env.local',
      '.git',
      '.GIT/config',
      'sub/.git/hooks/pre-commit',
      '.ssh/id_rsa',
      'keys/ID_ED25519.pub',
      'certs/server.Pem',
      '.aws/credentials',
      'home/.docker/config.json',
      'a/.npmrc',
      '.netrc',
      '.pypirc',
    ])
      expect(isPrivate(file), file).toBe(true);
  });

  it('leave names that only look alike', () => {
    for (const file of [
      '.gitignore',
      '.github/workflows/ci.yml',
      'docker/config.json',
      '.docker/Dockerfile',
      'src/key.ts',
      'git/config',
      'README.md',
    ])
      expect(isPrivate(file), file).toBe(false);
  });

  it('are each listed in the docs', () => {
    const docs = readFileSync(new URL('../../../docs/format.md', import.meta.url), 'utf8');
    for (const name of PRIVATE_NAMES) expect(docs, name).toContain(`\`${name}\``);
  });
});
