/**
 * What protocol mode does with the page's URL parameters. A protocol file fixes the run (model, engine, route, threads,
 * dtype, input, warm runs per receipt), so a parameter that would choose any of it is refused with one line naming it
 * and saying what would work, rather than ignored without a word; so is a protocol id the page has no file for.
 * Parameters that do not choose the run (which protocol, how much device detail, stage limits, autorun, the driver's
 * fresh-start statement, test hooks)
 * are read as everywhere else, and so is a run parameter whose value is the protocol's own (`ep=wasm` for a wasm
 * protocol). Pure.
 */
import { SHIPPED_PROTOCOL_IDS } from '../field/field-protocol.ts';
import { PARAMS } from './automation.ts';

/** The page's parameters protocol mode reads; every other known parameter chooses a run the protocol fixes. */
export const PROTOCOL_MODE_PARAMS: ReadonlySet<string> = new Set([
  'mode',
  'protocol',
  'autorun',
  'device_details',
  'stage_timeout_ms',
  'test_hooks',
  // A driver's statement that it started this browser with a fresh profile (drb public-pass, drb field-run).
  'driver_fresh',
]);

// A shown value is cut short and kept printable: an error line must not print a long secret or a control back.
function shown(raw: string): string {
  const printable = raw.replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, '?');
  return printable.length > 40 ? `${printable.slice(0, 40)}...` : printable;
}

/**
 * One line per known parameter protocol mode refuses (in the order the page defines them).
 * @param search the page's query (`location.search`)
 * @param protocolId the protocol protocol mode follows
 * @param accepted run parameters given with the protocol's own value (autorun-plan.ts, paramsOfProtocol): read
 */
export function protocolModeParamProblems(
  search: string,
  protocolId: string,
  accepted: ReadonlySet<string> = new Set(),
): string[] {
  const params = new URLSearchParams(search);
  const problems: string[] = [];
  for (const name of Object.keys(PARAMS)) {
    if (PROTOCOL_MODE_PARAMS.has(name) || accepted.has(name) || !params.has(name)) continue;
    problems.push(
      `Invalid ${name} param in protocol mode: '${shown(params.get(name) ?? '')}': protocol ${protocolId} fixes the model, engine, route, threads ` +
        'and warm runs; remove it, choose another protocol (?protocol=<id>), or open the developer panels (?mode=panels)',
    );
  }
  return problems;
}

/**
 * The line for a protocol the page cannot read: one the page has no file for names the shipped ones.
 * @param protocolId the id asked for
 * @param status the HTTP status its file answered (404: no such protocol)
 */
export function unreadableProtocolLine(protocolId: string, status: number): string {
  if (status === 404) {
    return `Unknown protocol '${shown(protocolId)}': this page has no protocols/${shown(protocolId)}.json; use one of ${SHIPPED_PROTOCOL_IDS.join(', ')} (?protocol=<id>)`;
  }
  return `protocols/${shown(protocolId)}.json: answered HTTP ${status}; reload the page, or use one of ${SHIPPED_PROTOCOL_IDS.join(', ')}`;
}
