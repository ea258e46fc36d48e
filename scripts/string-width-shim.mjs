// Stand-in for string-width in the bundled CLI: kdyn's help text is ASCII.
export default function stringWidth(s) {
  // strip ANSI escape sequences, then count code points
  return [...String(s).replace(/\u001b\[[0-9;]*m/g, '')].length;
}
