import { describe, expect, it } from 'vitest';
import { Pipeline } from '../../src/core/pipeline.js';
import { parseCaptureParams } from '../../src/core/schema/capture-params.js';

describe('pipeline', () => {
  it('keeps registration order within a phase and prefixes stage names', () => {
    const pipeline = new Pipeline();
    pipeline.use({ name: 'a', stages: [{ name: 'one', phase: 'settle', run: () => undefined }] });
    pipeline.use({ name: 'b', stages: [{ name: 'two', phase: 'settle', run: () => undefined }, { name: 'x', phase: 'prepare', run: () => undefined }] });
    expect(pipeline.stages('settle').map((stage) => stage.name)).toEqual(['a/one', 'b/two']);
    expect(pipeline.stages('prepare').map((stage) => stage.name)).toEqual(['b/x']);
  });

  it('checks dependencies and duplicate names at registration', () => {
    const pipeline = new Pipeline();
    expect(() => pipeline.use({ name: 'needs', dependencies: ['base'] })).toThrow(/needs 'base'/);
    pipeline.use({ name: 'base' });
    pipeline.use({ name: 'needs', dependencies: ['base'] });
    expect(() => pipeline.use({ name: 'base' })).toThrow(/already registered/);
  });

  it('takes a capture to leave state on its context when a stage that runs says so or says nothing', () => {
    const pipeline = new Pipeline();
    pipeline.use({
      name: 'p',
      stages: [
        { name: 'quiet', phase: 'settle', leavesContextState: false, run: () => undefined },
        { name: 'dark', phase: 'prepare', leavesContextState: (params) => params.dark_mode, run: () => undefined },
        { name: 'silent', phase: 'settle', when: (params) => params.delay > 0, run: () => undefined },
      ],
    });
    expect(pipeline.leavesContextState(parseCaptureParams({ url: 'https://example.com' }))).toBe(false);
    expect(pipeline.leavesContextState(parseCaptureParams({ url: 'https://example.com', dark_mode: true }))).toBe(true);
    expect(pipeline.leavesContextState(parseCaptureParams({ url: 'https://example.com', delay: 10 }))).toBe(true);
  });

  it('refuses a stage in an unknown phase', () => {
    expect(() => new Pipeline().use({ name: 'p', stages: [{ name: 's', phase: 'later' as never, run: () => undefined }] })).toThrow(/unknown phase/);
  });
});
