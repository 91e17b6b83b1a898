/**
 * The capabilities file of `drb public-pass --webdriver URL --capabilities FILE`: the W3C capabilities a session is
 * asked for (`alwaysMatch`), validated before anything is sent, and what of them a record may keep.
 *
 * A device farm's capabilities carry secrets (`bstack:options.accessKey`, `sauce:options.username`, ...). So a
 * record keeps the values of the W3C standard capabilities that describe the browser only (`browserName`,
 * `browserVersion`, `platformName`, `pageLoadStrategy`, ...) and of extension capabilities only their names; every
 * string inside the file that is not recorded is also a secret to scrub from any message the endpoint sends back.
 */
import { z } from 'zod';
import { textLine, Token } from '../text/bounded-text.ts';

/** An extension capability's name: `<vendor prefix>:<name>` (W3C WebDriver, "Extension capabilities"). */
const EXTENSION_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}:[A-Za-z0-9_.-]{1,64}$/;

/** The W3C standard capabilities whose values describe the browser and are recorded. */
const RECORDED = ['browserName', 'browserVersion', 'platformName', 'pageLoadStrategy', 'acceptInsecureCerts'] as const;

const JsonValue: z.ZodType<unknown> = z.lazy(() =>
  z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(JsonValue), z.record(z.string(), JsonValue)]),
);

// The W3C standard capabilities this file may set (`timeouts` is drb's own).
const STANDARD_CAPABILITIES: Record<string, true> = {
  browserName: true,
  browserVersion: true,
  platformName: true,
  acceptInsecureCerts: true,
  pageLoadStrategy: true,
  strictFileInteractability: true,
  unhandledPromptBehavior: true,
  setWindowRect: true,
  proxy: true,
  webSocketUrl: true,
};

/** The capabilities file: one JSON object of W3C capabilities (standard ones typed, extensions `vendor:name`). */
export const WebDriverCapabilities = z
  .looseObject({
    browserName: textLine(128).optional(),
    browserVersion: textLine(128).optional(),
    platformName: textLine(128).optional(),
    acceptInsecureCerts: z.boolean().optional(),
    pageLoadStrategy: z.enum(['none', 'eager', 'normal']).optional(),
    strictFileInteractability: z.boolean().optional(),
    unhandledPromptBehavior: z
      .enum(['dismiss', 'accept', 'dismiss and notify', 'accept and notify', 'ignore'])
      .optional(),
    setWindowRect: z.boolean().optional(),
    proxy: z.record(z.string(), JsonValue).optional(),
    webSocketUrl: z.boolean().optional(),
  })
  .superRefine((caps, ctx) => {
    for (const key of Object.keys(caps)) {
      if (key === 'timeouts') {
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: 'drb sets the W3C timeouts itself (from --timeout-ms); leave them out',
        });
      } else if (!(key in STANDARD_CAPABILITIES) && !EXTENSION_NAME.test(key)) {
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: 'is not a W3C capability; a vendor capability needs its prefix (appium:..., safari:..., goog:...)',
        });
      } else if (EXTENSION_NAME.test(key)) {
        const value = JsonValue.safeParse(caps[key]);
        if (!value.success) ctx.addIssue({ code: 'custom', path: [key], message: 'is not a JSON value' });
      }
    }
  });
export type WebDriverCapabilities = z.infer<typeof WebDriverCapabilities>;

/** What a record keeps of the capabilities: describing values of the standard ones, the names of the rest. */
export const RecordedCapabilities = z.strictObject({
  /** `browserName`, `browserVersion`, `platformName`, `pageLoadStrategy`, `acceptInsecureCerts` as asked for. */
  requested: z.record(Token, z.union([textLine(128), z.boolean()])),
  /** Every other capability asked for (extensions such as `appium:deviceName`, `proxy`), by name only: their values
   *  may hold credentials and are never recorded. */
  not_recorded: z.array(textLine(130)).max(256),
  /** What the endpoint answered for the same describing capabilities (null when it did not say). */
  matched: z.record(Token, z.union([textLine(128), z.boolean()])),
});
export type RecordedCapabilities = z.infer<typeof RecordedCapabilities>;

/** The describing capabilities of `caps` (the recorded keys whose values are a string or boolean), each cut short. */
function describing(caps: Record<string, unknown>): Record<string, string | boolean> {
  const out: Record<string, string | boolean> = {};
  for (const key of RECORDED) {
    const value = caps[key];
    if (typeof value === 'boolean') out[key] = value;
    else if (typeof value === 'string') out[key] = value.replace(/[\u0000-\u001f\u007f]/g, ' ').slice(0, 128);
  }
  return out;
}

/**
 * The capabilities as a record keeps them.
 * @param requested the validated capabilities file
 * @param matched the capabilities the endpoint answered with (its New Session answer; the file's secrets scrubbed)
 */
export function recordCapabilities(
  requested: WebDriverCapabilities,
  matched: Record<string, unknown>,
): RecordedCapabilities {
  // The endpoint's answer is its own text: a secret of the file it echoes there is scrubbed as in any message.
  const secrets = capabilitySecrets(requested);
  const answered = describing(matched);
  for (const [key, value] of Object.entries(answered)) {
    if (typeof value === 'string') answered[key] = scrubSecrets(value, secrets).slice(0, 128);
  }
  return {
    requested: describing(requested),
    not_recorded: Object.keys(requested)
      .filter((key) => !(RECORDED as readonly string[]).includes(key))
      .sort(),
    matched: answered,
  };
}

/**
 * Every string of the capabilities that a record does not keep (the values inside extensions and `proxy`, and their
 * keys' values at any depth), at least 3 characters long: what to scrub from an endpoint's messages before they
 * reach a record or a log (a hub may echo the user name it refused).
 * @param requested the validated capabilities file
 */
export function capabilitySecrets(requested: WebDriverCapabilities): string[] {
  const found = new Set<string>();
  const walk = (value: unknown) => {
    if (typeof value === 'string') {
      if (value.length >= 3) found.add(value);
    } else if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === 'object') Object.values(value).forEach(walk);
  };
  for (const [key, value] of Object.entries(requested)) {
    if (!(RECORDED as readonly string[]).includes(key)) walk(value);
  }
  // Longest first, so a secret that contains another is replaced whole.
  return [...found].sort((a, b) => b.length - a.length);
}

/**
 * `text` with every secret replaced by `[redacted]`.
 * @param text a message (an endpoint's error, a log line)
 * @param secrets from capabilitySecrets
 */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) out = out.split(secret).join('[redacted]');
  return out;
}
