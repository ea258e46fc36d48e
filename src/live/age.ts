/**
 * The AGE column counting up on the live view's screen: the server prints an object's age when it
 * sends the event (apimachinery's duration.HumanDuration: `45s`, `5m30s`, `3h12m`, `12d`); the view
 * reads it back and adds the time since, on the injected clock, so ages grow between events with no
 * request and whatever the two clocks say. Pure.
 */

/** apimachinery's duration.HumanDuration (as `kubectl get` prints AGE). */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const dy = Math.trunc(hours / 24) % 365;
    const y = Math.trunc(hours / 24 / 365);
    return dy === 0 ? `${y}y` : `${y}y${dy}d`;
  }
  return `${Math.trunc(hours / 24 / 365)}y`;
}

const HUMAN = /^(?:(\d+)y)?(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/;
const UNITS_MS = [365 * 86_400_000, 86_400_000, 3_600_000, 60_000, 1000];

/** What humanDuration printed, back in ms (its least value); undefined for anything else (`<unknown>`). */
export function parseHumanDuration(text: string): number | undefined {
  const m = text ? HUMAN.exec(text) : null;
  if (!m) return undefined;
  let ms = 0;
  for (let i = 0; i < UNITS_MS.length; i++) if (m[i + 1] !== undefined) ms += Number(m[i + 1]) * UNITS_MS[i]!;
  return ms;
}

/** How long until humanDuration(ms) prints something else (its last unit ticks over). */
export function untilNextChange(ms: number): number {
  const unit = ms < 10 * 60_000 ? 1000 : ms < 8 * 3_600_000 ? 60_000 : ms < 8 * 86_400_000 ? 3_600_000 : 86_400_000;
  return unit - (Math.max(0, ms) % unit);
}
