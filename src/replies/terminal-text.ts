/**
 * Text for a terminal, shown as it is instead of acted on: control characters (ESC, CSI, carriage return, bell,
 * backspace …) become visible symbols, so text from the service or from input cannot move the cursor, recolour
 * the screen or retitle the window. Newlines and tabs stay.
 */
export function terminalText(text: string): string {
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, (char) => {
    const code = char.charCodeAt(0);
    if (code < 0x20) return String.fromCharCode(0x2400 + code);
    return code === 0x7f ? '\u2421' : '\ufffd';
  });
}
