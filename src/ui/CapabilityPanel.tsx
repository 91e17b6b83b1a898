import type { Capabilities } from '../core/receipt/receipt.ts';

function yesNo(value: boolean | null): string {
  return value === null ? 'unknown' : value ? 'yes' : 'no';
}

function mib(bytes: number | null): string {
  return bytes === null ? 'not exposed' : `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
}

/** The capability probe as a table; every value shown is what the receipt records. */
export function CapabilityPanel(props: { capabilities: Capabilities | null }) {
  const c = props.capabilities;
  if (!c)
    return (
      <section class="panel" aria-busy="true">
        <h2>This browser</h2>
        <p>Probing…</p>
      </section>
    );
  const gpu = c.webgpu;
  const rows: Array<[string, string]> = [
    ['User agent', c.user_agent],
    [
      'UA client hints',
      c.ua_client_hints
        ? `${c.ua_client_hints.platform}${c.ua_client_hints.mobile ? ' (mobile)' : ''} ${c.ua_client_hints.model ?? ''}`.trim()
        : 'not offered',
    ],
    ['Cross-origin isolated', yesNo(c.cross_origin_isolated)],
    ['SharedArrayBuffer', yesNo(c.shared_array_buffer)],
    ['WASM SIMD / threads', `${yesNo(c.wasm.simd)} / ${yesNo(c.wasm.threads)}`],
    ['Hardware concurrency', c.hardware_concurrency === null ? 'not exposed' : String(c.hardware_concurrency)],
    ['Device memory', c.device_memory_gb === null ? 'not exposed' : `${c.device_memory_gb} GB`],
    ['JS heap limit', c.js_heap ? mib(c.js_heap.js_heap_size_limit) : 'not exposed'],
    [
      'Storage quota / used',
      `${mib(c.storage.quota_bytes)} / ${mib(c.storage.usage_bytes)} (persisted: ${yesNo(c.storage.persisted)})`,
    ],
    ['navigator.gpu (diagnostic only)', yesNo(gpu.navigator_gpu)],
    [
      'WebGPU adapter',
      gpu.adapter_granted ? 'granted' : gpu.adapter_error ? `refused: ${gpu.adapter_error}` : 'none granted',
    ],
  ];
  if (gpu.adapter_info) {
    const i = gpu.adapter_info;
    rows.push([
      'Adapter',
      [i.vendor, i.architecture, i.device, i.description].filter(Boolean).join(' / ') || '(empty info)',
    ]);
    rows.push(['Fallback adapter', yesNo(gpu.is_fallback_adapter)]);
    rows.push(['Features', gpu.features.join(', ') || 'none']);
    if (gpu.limits)
      rows.push([
        'Limits',
        Object.entries(gpu.limits)
          .map(([k, v]) => `${k} ${v}`)
          .join(', '),
      ]);
  }
  return (
    <section class="panel" data-testid="capabilities">
      <h2>This browser</h2>
      <table class="kv">
        <tbody>
          {rows.map(([k, v]) => (
            <tr key={k}>
              <th scope="row">{k}</th>
              <td>{v}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
