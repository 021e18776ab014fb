-- The question tallies' element-wise sum (0024) as PL/pgSQL: the same answers (NULL for NULL, the longer array's
-- length, missing elements as 0, NULL for two empty arrays), without a sub-select per call. It runs once per
-- answer in every usage batch (`question_sum_counts`), where the SQL version cost 3–4× as much (issue 53:
-- 20,000 two-element sums in 114 ms against 28 ms on PostgreSQL 15).
CREATE OR REPLACE FUNCTION question_add_counts(a bigint[], b bigint[]) RETURNS bigint[]
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  n integer;
  out bigint[];
BEGIN
  IF a IS NULL THEN RETURN b; END IF;
  IF b IS NULL THEN RETURN a; END IF;
  n := greatest(cardinality(a), cardinality(b));
  IF n = 0 THEN RETURN NULL; END IF;
  out := array_fill(0::bigint, ARRAY[n]);
  FOR i IN 1..n LOOP
    out[i] := coalesce(a[i], 0) + coalesce(b[i], 0);
  END LOOP;
  RETURN out;
END
$$;
