/**
 * The session sheet: what the protocol asks the tester to record outside every receipt (device model, RAM, OS build,
 * browser and version, network, battery and thermal state, the public page's revision). Each field is short and
 * bounded as the bundle schema bounds it; everything typed is shown here in full and goes into the bundle only.
 */
import { TesterSheet } from '../core/field/receipt-bundle.ts';
import { containsTypedUrlSecret } from '../core/text/redact.ts';

type TextField = 'device_model' | 'os_build' | 'browser' | 'browser_version' | 'network' | 'public_revision' | 'notes';

const TEXT_FIELDS: Array<{ key: TextField; label: string; max: number; hint: string }> = [
  { key: 'device_model', label: 'Device model', max: 128, hint: 'e.g. iPhone 15 (A3090)' },
  { key: 'os_build', label: 'OS build', max: 64, hint: 'Settings > General > About, e.g. iOS 26.1 (23B85)' },
  { key: 'browser', label: 'Browser', max: 64, hint: 'e.g. Safari' },
  { key: 'browser_version', label: 'Browser version', max: 64, hint: 'e.g. 26.1' },
  { key: 'network', label: 'Network', max: 128, hint: 'e.g. Wi-Fi 5 GHz, or 5G' },
  { key: 'public_revision', label: 'Page revision', max: 64, hint: "the commit shown at the page's foot" },
  { key: 'notes', label: 'Notes', max: 1000, hint: 'a reload, a warning, anything you noticed' },
];

/** A number field's text as the sheet's value (empty = not filled in). */
function numberOrNull(text: string, integer: boolean): number | null {
  if (text.trim() === '') return null;
  const n = Number(text);
  return Number.isFinite(n) && (!integer || Number.isInteger(n)) ? n : null;
}

/**
 * @param props.sheet the sheet as stored
 * @param props.onChange the sheet after an edit (saved by the caller)
 */
export function TesterSheetForm(props: { sheet: TesterSheet; onChange(sheet: TesterSheet): void }) {
  const { sheet } = props;
  const set = (patch: Partial<TesterSheet>) => {
    const next = { ...sheet, ...patch };
    // Only a sheet the bundle schema accepts is kept (the inputs' limits make that the usual case).
    if (TesterSheet.safeParse(next).success) props.onChange(next);
  };
  return (
    <fieldset class="sheet" data-testid="session-sheet">
      <legend>Session sheet (kept outside every receipt, shown here in full, exported in the bundle)</legend>
      {TEXT_FIELDS.map((f) => (
        <label key={f.key}>
          {f.label}
          <input
            type="text"
            maxLength={f.max}
            value={sheet[f.key]}
            placeholder={f.hint}
            data-testid={`sheet-${f.key}`}
            onInput={(e) =>
              set({
                [f.key]: e.currentTarget.value.replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, ''),
              })
            }
          />
          {containsTypedUrlSecret(sheet[f.key]) && (
            <span class="sheet-warning" role="alert" data-testid={`sheet-${f.key}-warning`}>
              This holds a web address with a query, a fragment or a password: drb refuses a bundle whose sheet carries
              one. Keep only the site's name.
            </span>
          )}
        </label>
      ))}
      <label>
        RAM (GB)
        <input
          type="number"
          min={0.5}
          max={1024}
          step={0.5}
          inputMode="decimal"
          value={sheet.ram_gb ?? ''}
          data-testid="sheet-ram_gb"
          onInput={(e) => set({ ram_gb: numberOrNull(e.currentTarget.value, false) })}
        />
      </label>
      <label>
        Battery (%)
        <input
          type="number"
          min={0}
          max={100}
          step={1}
          inputMode="numeric"
          value={sheet.battery_percent ?? ''}
          data-testid="sheet-battery_percent"
          onInput={(e) => set({ battery_percent: numberOrNull(e.currentTarget.value, true) })}
        />
      </label>
      <label>
        Charging
        <select
          value={sheet.charging === null ? '' : String(sheet.charging)}
          data-testid="sheet-charging"
          onChange={(e) => set({ charging: e.currentTarget.value === '' ? null : e.currentTarget.value === 'true' })}
        >
          <option value="">not said</option>
          <option value="true">yes</option>
          <option value="false">no</option>
        </select>
      </label>
      <label>
        Thermal state
        <select
          value={sheet.thermal_state}
          data-testid="sheet-thermal_state"
          onChange={(e) => set({ thermal_state: e.currentTarget.value as TesterSheet['thermal_state'] })}
        >
          {TesterSheet.shape.thermal_state.options.map((o) => (
            <option key={o} value={o}>
              {o}
            </option>
          ))}
        </select>
      </label>
    </fieldset>
  );
}
