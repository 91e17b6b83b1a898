/** The footer of both views: the app's version and the git commit it was built from (receipts record the same). */
export function PageFooter() {
  return (
    <footer>
      <small>
        device-receipts-bench {__DRB_VERSION__} · commit {__DRB_COMMIT__ ?? 'unknown'}
      </small>
    </footer>
  );
}
