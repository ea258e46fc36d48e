/**
 * The escape sequences the live view writes (ECMA-48 / xterm; every terminal emulator in use knows
 * them). The view draws on the alternate screen, so the shell's screen and scrollback come back as
 * they were when it ends.
 */
const CSI = '\x1b[';

/** Alternate screen on, cursor hidden, cursor home, screen cleared. */
export const ENTER = `${CSI}?1049h${CSI}?25l${CSI}H${CSI}2J`;
/** Attributes reset, cursor shown, alternate screen off (the shell's screen back, cursor where it was). */
export const LEAVE = `${CSI}0m${CSI}?25h${CSI}?1049l`;
/** The whole screen cleared (after a resize). */
export const CLEAR = `${CSI}H${CSI}2J`;
/** Erase from the cursor to the end of the line. */
export const ERASE_LINE = `${CSI}K`;

/** Cursor to `row`, column 1 (both 0-based here, 1-based on the wire). */
export function moveTo(row: number): string {
  return `${CSI}${row + 1}H`;
}

export type Style = 'bold' | 'reverse' | 'dim';

const SGR: Record<Style, string> = { bold: '1', reverse: '7', dim: '2' };

/** `text` in `style`, attributes reset after it. */
export function styled(text: string, style: Style | undefined): string {
  return style && text ? `${CSI}${SGR[style]}m${text}${CSI}0m` : text;
}
