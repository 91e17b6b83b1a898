/**
 * The panels view's developer panels, fetched as one chunk after the page's first paint (src/ui/deferred.tsx).
 */
export { ComparePanel } from './ComparePanel.tsx';
export { GenerationPanel } from './GenerationPanel.tsx';
export { SuitePanel } from './SuitePanel.tsx';
export { SweepPanel } from './SweepPanel.tsx';
export { UserModelPanel } from './UserModelPanel.tsx';
