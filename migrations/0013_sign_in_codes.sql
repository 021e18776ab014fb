-- Issue 45 item 1: an address may hold several live sign-in codes (a new code no longer replaces the ones
-- already sent; each stays valid until it expires or is used), and a code's wrong tries are counted per
-- client network, so a stranger's guesses cannot use up the tries of the owner's code.
ALTER TABLE sign_in_codes DROP CONSTRAINT IF EXISTS sign_in_codes_pkey;
ALTER TABLE sign_in_codes DROP COLUMN IF EXISTS attempts;
ALTER TABLE sign_in_codes ADD PRIMARY KEY (email, code_hmac);
CREATE INDEX IF NOT EXISTS sign_in_codes_expires_idx ON sign_in_codes (expires_at);

-- Tries of one code from one client network (IPv4 /24, IPv6 /48); gone with the code.
CREATE TABLE IF NOT EXISTS sign_in_code_tries (
  email text NOT NULL,
  code_hmac text NOT NULL,
  network text NOT NULL,
  tries int NOT NULL,
  PRIMARY KEY (email, code_hmac, network),
  FOREIGN KEY (email, code_hmac) REFERENCES sign_in_codes (email, code_hmac) ON DELETE CASCADE
);
