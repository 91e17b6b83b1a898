import type { DeviceDetails } from '../core/receipt/receipt.ts';

/**
 * The tester's choice of how much of the device the receipts record (`device_details`): reduced unless ticked.
 * @param props.value the choice now
 * @param props.disabled while a run holds the page (its receipt keeps the choice it started with)
 * @param props.onChange the new choice
 */
export function DeviceDetailsChoice(props: {
  value: DeviceDetails;
  disabled: boolean;
  onChange(value: DeviceDetails): void;
}) {
  return (
    <label class="device-details">
      <input
        type="checkbox"
        data-testid="device-details"
        checked={props.value === 'full'}
        disabled={props.disabled}
        onChange={(e) => props.onChange(e.currentTarget.checked ? 'full' : 'reduced')}
      />{' '}
      Record full device details in receipts: the full user agent, OS version, CPU architecture, device model and full
      browser versions. Unticked, a receipt keeps the browser with its major version, the platform and the mobile flag
      only, and records which you chose.
    </label>
  );
}
