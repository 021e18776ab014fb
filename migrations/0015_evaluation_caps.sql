-- Evaluation caps (issue 45 item 2): the bytes each evaluation stores (its items' request and expected JSON
-- text, as uploaded), so an account's stored total is one indexed sum; the cap itself lives in the code.
ALTER TABLE evaluations ADD COLUMN IF NOT EXISTS bytes bigint NOT NULL DEFAULT 0;
UPDATE evaluations e
   SET bytes = s.bytes
  FROM (SELECT evaluation_id, sum(octet_length(request) + octet_length(expected)) AS bytes
          FROM evaluation_items GROUP BY evaluation_id) s
 WHERE s.evaluation_id = e.id AND e.bytes = 0;
