// Page entry: validates the bundled catalog (with the local pins overlay), sets the automation contract's window fields, and renders the App.
// First: what the page's start looked like, before anything the page does can change it.
import './page/page-start.ts';
import { render } from 'preact';
import catalogJson from 'virtual:drb-catalog';
import { parseCatalog } from './core/catalog/catalog.ts';
import { App } from './ui/App.tsx';
import './ui/styles.css';

window.drbReceipts = [];
window.drbReceiptCount = 0;
window.drbArtifacts = [];
window.drbArtifactCount = 0;
window.drbApp = { name: 'device-receipts-bench', version: __DRB_VERSION__, commit: __DRB_COMMIT__ };
document.documentElement.dataset.drbState = 'loading';

const root = document.getElementById('app')!;
try {
  render(<App catalog={parseCatalog(catalogJson, 'src/catalog/catalog.json (with src/catalog/pins.json)')} />, root);
} catch (error) {
  document.documentElement.dataset.drbState = 'failed';
  root.textContent = `error: ${error instanceof Error ? error.message : String(error)}`;
}
