/** The time of a video drawn frame by frame, as a journey run between its frames sees it. */
export interface VideoTime {
  /** Resolves once the video reaches `ms` after its current moment: the frames between are drawn meanwhile. */
  sleep(ms: number): Promise<void>;
  /** How far apart its frames are, in ms. */
  readonly frameMs: number;
}

/**
 * Runs `journey` between the frames of a video drawn frame by frame (issue 53), on the video's time:
 * the returned function, called before each frame is drawn, lets the journey run until it sleeps past
 * that frame's moment (`momentOf(index)`, ms from the first) or ends, so that whatever it does lands
 * between two frames, however long it takes on the wall clock. It starts at the first frame. Its own
 * time is the sum of its sleeps, so that sleeps shorter than a frame add up (a pointer's 16 ms steps
 * at 10 fps: six of them before a frame) rather than each waiting for the next frame. Its failure
 * fails the frame; steps still sleeping when the video ends are never woken.
 */
export function betweenFrames(journey: (time: VideoTime) => Promise<void>, momentOf: (index: number) => number): (index: number) => Promise<void> {
  let now = 0;
  /** Where the journey's own time stands: the moment its last sleep ended. */
  let journeyAt = 0;
  let wakeAt = 0;
  let wake: (() => void) | undefined;
  let turn: { resolve: () => void; reject: (error: unknown) => void } | undefined;
  let started = false;
  let done = false;
  const yieldTurn = (): void => turn?.resolve();
  const time: VideoTime = {
    frameMs: momentOf(1) - momentOf(0),
    sleep: (ms) =>
      new Promise((resolve) => {
        wakeAt = journeyAt + ms;
        wake = resolve;
        yieldTurn();
      }),
  };
  /** Runs the journey until it sleeps or ends; what `resume` wakes or starts is its turn. */
  const takeTurn = (resume: () => void): Promise<void> =>
    new Promise((resolve, reject) => {
      turn = { resolve, reject };
      resume();
    });
  const start = (): void =>
    void journey(time).then(
      () => {
        done = true;
        yieldTurn();
      },
      (error: unknown) => {
        done = true;
        turn?.reject(error);
      },
    );
  return async (index) => {
    now = momentOf(index);
    if (!started) {
      started = true;
      journeyAt = now;
      await takeTurn(start);
    }
    while (!done && wake && wakeAt <= now) {
      const woken = wake;
      wake = undefined;
      journeyAt = wakeAt;
      await takeTurn(woken);
    }
  };
}
