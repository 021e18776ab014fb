import fc from "fast-check";
import { deepNest } from "./deep";
import type { BodyRoute } from "./routes";

/** One generated body for one route (by its index in the route list). */
export interface RouteBody {
  route: number;
  bytes: Uint8Array;
  /** A value in it is nested thousands deep. */
  deep: boolean;
}

const encoder = new TextEncoder();
const value = fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v));

/**
 * Bodies for every route that takes one: its own fields with any JSON values (some left out), and in half of
 * them one field, an unknown field or the whole body replaced by a value nested thousands deep (issue 45
 * item 9). Field names are the route's (`bodyRoutes`).
 */
export function routeBodies(routes: readonly BodyRoute[]): fc.Arbitrary<RouteBody> {
  return fc
    .tuple(
      fc.nat({ max: routes.length - 1 }),
      fc.array(fc.option(value, { freq: 4 }), { minLength: 8, maxLength: 8 }),
      fc.boolean(),
      fc.nat(),
      deepNest,
    )
    .map(([route, values, deep, slot, nest]) => {
      const fields = routes[route]!.fields;
      const members: [string, string][] = [];
      fields.forEach((f, i) => {
        const v = values[i % values.length];
        if (v !== null && v !== undefined) members.push([f, v]);
      });
      if (deep) {
        const at = slot % (fields.length + 2);
        if (at === fields.length + 1) return { route, bytes: encoder.encode(nest.raw), deep };
        const name = at === fields.length ? "unknown_deep" : fields[at]!;
        const i = members.findIndex(([k]) => k === name);
        if (i >= 0) members[i] = [name, nest.raw];
        else members.push([name, nest.raw]);
      }
      const text = `{${members.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(",")}}`;
      return { route, bytes: encoder.encode(text), deep };
    });
}
