/**
 * A labelled text or number input, as the run panels' controls use them: disabled while the panel runs, its text
 * handed to the panel (which decides what a valid value is) on each keystroke, or, with `onCommit`, when the field is
 * committed (enter or leaving it).
 * @param props.label the label's text
 * @param props.value what the field shows
 * @param props.type `number` (with `min` and `max`) or `text`
 * @param props.size a text field's width in characters
 * @param props.busy disables the field while a run is going
 * @param props.testId the input's test id
 * @param props.onText the text, as typed; `onCommit`: the text, when committed
 */
export function Field(props: {
  label: string;
  value: string | number;
  type?: 'number' | 'text';
  min?: number;
  max?: number;
  placeholder?: string;
  inputMode?: 'decimal';
  /** A text field's width in characters (it still never grows past its container). */
  size?: number;
  busy: boolean;
  testId: string;
  onText?(text: string): void;
  onCommit?(text: string): void;
}) {
  const { onText, onCommit } = props;
  return (
    <label>
      {props.label}
      <input
        type={props.type ?? 'number'}
        min={props.min}
        max={props.max}
        placeholder={props.placeholder}
        inputMode={props.inputMode}
        size={props.size}
        value={props.value}
        disabled={props.busy}
        data-testid={props.testId}
        onInput={onText ? (e) => onText(e.currentTarget.value) : undefined}
        onChange={onCommit ? (e) => onCommit(e.currentTarget.value) : undefined}
      />
    </label>
  );
}
