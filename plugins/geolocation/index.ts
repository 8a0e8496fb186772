import type { CapturePlugin } from '../../src/core/plugin-api.js';

/** Sets the browser geolocation and grants the permission to the target's origin only. */
export function geolocation(): CapturePlugin {
  return {
    name: 'geolocation',
    stages: [
      {
        name: 'set-position',
        phase: 'prepare',
        leavesContextState: true,
        when: (params) => params.latitude !== undefined && params.longitude !== undefined,
        run: async ({ browserContext, params, target }) => {
          await browserContext.setGeolocation({ latitude: params.latitude as number, longitude: params.longitude as number, accuracy: 10 });
          await browserContext.grantPermissions(['geolocation'], { origin: new URL(target).origin });
        },
      },
    ],
  };
}
