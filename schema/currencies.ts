/** Checkout currencies and the region rule (spec: Plan list `currencies`). */

/** A checkout currency; all four have 2-decimal minor units (cents, pence, paise). */
export type Currency = "EUR" | "USD" | "GBP" | "INR";

/** Checkout currencies, EUR first (the order of `currencies` in GET /v1/plans). */
export const CURRENCIES: readonly Currency[] = ["EUR", "USD", "GBP", "INR"];

// EU member states, their outermost regions with their own ISO 3166-1 codes, EEA (Iceland, Liechtenstein,
// Norway) and Switzerland.
const EUR_COUNTRIES = new Set([
  ...["AT", "BE", "BG", "HR", "CY", "CZ", "DK", "EE", "FI", "FR", "DE", "GR", "HU", "IE", "IT", "LV"],
  ...["LT", "LU", "MT", "NL", "PL", "PT", "RO", "SK", "SI", "ES", "SE"],
  ...["AX", "GF", "GP", "MQ", "RE", "YT", "MF"],
  ...["IS", "LI", "NO", "CH"],
]);

/**
 * The checkout currency of a country (ISO 3166-1 alpha-2, any case): India INR, United Kingdom GBP,
 * EU/EEA/Switzerland EUR, everyone else (and an unknown country) USD.
 */
export function currencyForCountry(country: string | null | undefined): Currency {
  const c = (country ?? "").toUpperCase();
  if (c === "IN") return "INR";
  if (c === "GB") return "GBP";
  return EUR_COUNTRIES.has(c) ? "EUR" : "USD";
}
