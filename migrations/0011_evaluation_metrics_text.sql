-- Evaluation metrics as JSON text: jsonb reorders object keys (shortest first), but questions are reported in
-- the order they first appear and each metric object in its documented field order.
ALTER TABLE evaluations ALTER COLUMN metrics TYPE text USING metrics::text;
