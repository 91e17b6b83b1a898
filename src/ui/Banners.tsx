/** Page-level notices: missing cross-origin isolation, bad URL parameters, and receipts that failed validation. */
export function Banners(props: { crossOriginIsolated: boolean | null; paramErrors: string[]; problems: string[] }) {
  return (
    <div class="banners">
      {!window.isSecureContext && (
        <p class="banner error" data-testid="insecure-banner">
          This page was opened over plain http from another machine, which is not a secure context: the browser
          withholds the hashing API and cross-origin isolation, so runs cannot produce receipts. Open it over https (or
          on 127.0.0.1 / localhost). See docs/deploy.md.
        </p>
      )}
      {props.crossOriginIsolated === false && (
        <p class="banner warn" data-testid="coi-banner">
          This page is not cross-origin isolated (the host did not send COOP/COEP headers): no SharedArrayBuffer, so
          WASM threads are limited to 1 whatever you choose. See docs/deploy.md.
        </p>
      )}
      {props.paramErrors.map((error) => (
        <p class="banner error" data-testid="param-error" key={error}>
          {error}
        </p>
      ))}
      {props.problems.length > 0 && (
        <div class="banner error" data-testid="receipt-problems">
          The last receipt failed validation and is not offered for download (a bug; please report it):
          <ul>
            {props.problems.map((p) => (
              <li key={p}>{p}</li>
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}
