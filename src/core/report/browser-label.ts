/**
 * A short browser name for a report's target table, read from the user agent a receipt recorded (the full user
 * agent stays in the receipt and the summary). Only the few engines a tester can hold are told apart; anything else
 * is "other browser", never a guess.
 */

const RULES: ReadonlyArray<{ pattern: RegExp; name: string }> = [
  { pattern: /\bEdg(?:A|iOS)?\/(\d+)/, name: 'Edge' },
  { pattern: /\bHeadlessChrome\/(\d+)/, name: 'Headless Chrome' },
  { pattern: /\bCriOS\/(\d+)/, name: 'Chrome on iOS' },
  { pattern: /\bFxiOS\/(\d+)/, name: 'Firefox on iOS' },
  { pattern: /\bFirefox\/(\d+)/, name: 'Firefox' },
  { pattern: /\bSamsungBrowser\/(\d+)/, name: 'Samsung Internet' },
  { pattern: /\bChrome\/(\d+)/, name: 'Chrome' },
  // Last: every WebKit browser says "Safari"; WebKitGTK's MiniBrowser says it too, hence "Safari/WebKit".
  { pattern: /\bVersion\/([\d.]+).*\bSafari\//, name: 'Safari/WebKit' },
];

/**
 * The browser and its major version, e.g. "Headless Chrome 156", "Safari/WebKit 18.1", or "other browser".
 * @param userAgent the user agent string a receipt recorded
 */
export function browserLabel(userAgent: string): string {
  for (const { pattern, name } of RULES) {
    const match = pattern.exec(userAgent);
    if (match) return `${name} ${match[1]}`;
  }
  return 'other browser';
}
