/**
 * What protocol mode reads when it opens: the field protocol it follows (fetched and checked at run time, so a bad
 * file says so on the page), every receipt of the stored session (read back from the device once), and the URL
 * parameters it refuses.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { PARAMS, type ParsedAutomation } from '../core/automation/automation.ts';
import { PROTOCOL_HELD_PARAMS, paramsOfProtocol } from '../core/automation/autorun-plan.ts';
import type { ModelCatalog } from '../core/catalog/catalog.ts';
import { parseProtocol, protocolCatalogProblems, protocolPath, type Protocol } from '../core/field/field-protocol.ts';
import { protocolModeParamProblems, unreadableProtocolLine } from '../core/automation/protocol-mode-params.ts';
import { livePageFacts } from '../page/page-facts.ts';
import { storedSession } from '../page/stored-session.ts';

/** The field protocol once read: the protocol, or the one line naming the file, the field and the problem. */
export type FieldProtocolState = { protocol: Protocol; error: null } | { protocol: null; error: string | null };

/**
 * Fetches, parses and checks (against the catalog) the field protocol `protocolId`; the stored session records it as
 * the protocol followed.
 * @param protocolId the protocol's id (public/protocols/<id>.json)
 * @param catalog the page's catalog (the protocol's model and input must be in it)
 * @returns `{protocol: null, error: null}` while it loads
 */
export function useFieldProtocol(protocolId: string, catalog: ModelCatalog): FieldProtocolState {
  const [state, setState] = useState<FieldProtocolState>({ protocol: null, error: null });
  useEffect(() => {
    const file = protocolPath(protocolId);
    const fail = (error: string) => setState({ protocol: null, error });
    void (async () => {
      try {
        const response = await fetch(new URL(file, livePageFacts(null).pageBaseUrl), { cache: 'no-store' });
        // One the page has no file for names the shipped protocols.
        if (!response.ok) return fail(unreadableProtocolLine(protocolId, response.status));
        let value: unknown;
        try {
          value = await response.json();
        } catch {
          throw new Error('(document): not valid JSON');
        }
        const parsed = parseProtocol(value, file, protocolId);
        if (!parsed.ok) return fail(parsed.line);
        const problems = protocolCatalogProblems(parsed.protocol, catalog, file);
        if (problems.length > 0) return fail(problems[0]);
        storedSession.fieldProtocol = parsed.protocol;
        setState({ protocol: parsed.protocol, error: null });
      } catch (error) {
        fail(`${file}: ${(error as Error).message}`);
      }
    })();
  }, []);
  return state;
}

/** Every receipt of the stored session, as protocol mode holds it. */
export interface StoredReceipts {
  /** Every receipt of the session (any kind), oldest first: read back once at load, then grown by each run here. */
  receipts: unknown[];
  /** The session has been read back from the device. */
  ready: boolean;
  /** A receipt this page just stored. */
  add(receipt: unknown): void;
  /** Reads every receipt back again (after files were taken back); resolves once the view holds them. */
  reload(): Promise<void>;
  /** Counts the stored session's changes (the hand-off log, the tester's answers, the sheet taken back). */
  version: number;
}

/**
 * Reads every receipt of the stored session back once (the field kit's sessions are a protocol's few dozen runs; the
 * bundle is built from these within the tester's tap); only a deletion empties it again.
 */
export function useStoredReceipts(): StoredReceipts {
  const [receipts, setReceipts] = useState<unknown[]>([]);
  const [ready, setReady] = useState(false);
  const [version, setVersion] = useState(0);
  useEffect(() => {
    const off = storedSession.subscribe(() => {
      if (storedSession.counts.receipts === 0) setReceipts([]);
      setVersion((v) => v + 1);
    });
    void storedSession.ready.then(async () => {
      setReceipts(await storedSession.allReceipts());
      setReady(true);
    });
    return off;
  }, []);
  return {
    receipts,
    ready,
    version,
    add: (receipt) => setReceipts((prev) => [...prev, receipt]),
    reload: () => storedSession.allReceipts().then(setReceipts),
  };
}

/**
 * Every URL parameter protocol mode cannot take, one line each (a parameter refused in protocol mode named once). A
 * run setting the URL gives (model, ep, threads, ...) is read when it is the protocol's own and refused otherwise;
 * until the protocol file is read, those that parsed wait to be judged.
 * @param automation the parsed URL
 * @param protocolId the protocol protocol mode follows
 * @param protocol the protocol once read (null while it loads)
 */
export function useParamProblems(
  automation: ParsedAutomation,
  protocolId: string,
  protocol: Protocol | null,
): string[] {
  return useMemo(() => {
    const given = new Set(automation.given ?? []);
    const accepted = protocol
      ? paramsOfProtocol(protocol, automation)
      : new Set(PROTOCOL_HELD_PARAMS.filter((name) => given.has(PARAMS[name].field)));
    const modeProblems = protocolModeParamProblems(location.search, protocolId, accepted);
    const named = new Set(modeProblems.map((line) => /^Invalid (\S+) param/.exec(line)?.[1]));
    const unread = automation.errors.filter((line) => !named.has(/^Invalid (\S+) param/.exec(line)?.[1]));
    return [...unread, ...modeProblems];
  }, [protocol]);
}
