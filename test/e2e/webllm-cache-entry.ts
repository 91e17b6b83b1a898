/**
 * Browser entry for test/e2e/webllm-cache.test.ts (bundled by that test with Vite into a temp folder): exposes the
 * adapter's cache read-back next to WebLLM's OWN cache helpers (`hasModelInCache`, `deleteModelAllInfoInCache`), so
 * the test can check, in a real Chromium Cache API, that the adapter reads exactly the caches and URLs WebLLM uses.
 */
import { deleteModelAllInfoInCache, hasModelInCache } from '@mlc-ai/web-llm';
import { hashWebLlmFiles, WEBLLM_CACHE_BACKEND, WEBLLM_CACHE_NAMES } from '../../workers/engines/webllm-cache.ts';

// A plain property on window (not a declared global): this file is only ever loaded by that one test page.
(window as unknown as Record<string, unknown>).drbWebLlmCache = {
  hashWebLlmFiles,
  hasModelInCache,
  deleteModelAllInfoInCache,
  cacheBackend: WEBLLM_CACHE_BACKEND,
  names: WEBLLM_CACHE_NAMES,
};
