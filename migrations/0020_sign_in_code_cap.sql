-- Issue 50 item 4: every try at a code from any network, counted on the code itself (one row lock serialises
-- parallel tries, so many networks at once cannot pass the cap); past MAX_CODE_TRIES_ALL_NETWORKS the code dies.
ALTER TABLE sign_in_codes ADD COLUMN IF NOT EXISTS tries int NOT NULL DEFAULT 0;
