/** The lane facts a public-pass record needs beside its evidence, for tests that build one (a lane that starts its
 *  browser with a fresh profile, as `drb public-pass --browser` does). */
import type { PassFindings } from '../../src/core/automation/public-pass.ts';

/**
 * The lane, endpoint, capabilities, window and driver statement of a pass in a browser the lane started.
 * @param lane chromium or webkit
 */
export function startedLaneFacts(
  lane: 'chromium' | 'webkit',
): Pick<PassFindings, 'lane' | 'endpoint' | 'capabilities' | 'window' | 'driverStatement'> {
  return {
    lane,
    endpoint: null,
    capabilities: null,
    window: { requested: null, set_by: null, problem: null, measured: null },
    driverStatement: {
      stated_by: `drb 0.1.0 public-pass, ${lane} lane`,
      how: 'launched a new browser process with a new temporary profile',
      browser_process: 'started',
      process_new: true,
      profile_empty: true,
      site_data_cleared: null,
    },
  };
}
