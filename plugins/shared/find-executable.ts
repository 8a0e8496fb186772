import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import path from 'node:path';

/** The first executable file named `binary` in the directories of `searchPath` (a PATH value). */
export async function findOnPath(binary: string, searchPath: string): Promise<string | undefined> {
  for (const dir of searchPath.split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, binary);
    if (await isExecutable(candidate)) return candidate;
  }
  return undefined;
}

export async function isExecutable(file: string): Promise<boolean> {
  try {
    await access(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
