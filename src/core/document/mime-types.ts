import type MimeTypes from 'mime-types';
import { lazyRequire } from '../loading/lazy-require.js';

/** mime-types, loaded with the first upload: it reads mime-db's table of every type (about 15 ms), which captures of URLs never use. */
export const mimeTypes = lazyRequire<typeof MimeTypes>('mime-types');
