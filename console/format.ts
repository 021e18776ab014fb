/** Display formats (the API's numbers are integers: micro-cents, cents, tokens). */

const MICRO_CENTS_PER_EUR = 100_000_000;

/** EUR from micro-cents, to the cent (the exact value is in the title). */
export function eurFromMicroCents(micro: number): string {
  return new Intl.NumberFormat("en-IE", { style: "currency", currency: "EUR" }).format(
    micro / MICRO_CENTS_PER_EUR,
  );
}

/** A price from minor units. */
export function money(minor: number, currency: string): string {
  return new Intl.NumberFormat("en-IE", { style: "currency", currency }).format(minor / 100);
}

/** A token count with separators. */
export function tokens(n: number): string {
  return new Intl.NumberFormat("en-IE").format(n);
}

/** A date-time (ISO or unix seconds) in the browser's locale, UTC noted. */
export function when(v: string | number | null): string {
  if (v === null) return "never";
  const d = typeof v === "number" ? new Date(v * 1000) : new Date(v);
  return `${d.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/** YYYY-MM-DD of a Date in UTC, `days` later. */
export function utcDate(d: Date, days = 0): string {
  return new Date(d.getTime() + days * 86_400_000).toISOString().slice(0, 10);
}

/** A probability as a percentage. */
export function percent(p: number): string {
  return `${(p * 100).toFixed(1)} %`;
}
