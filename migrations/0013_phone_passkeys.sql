-- A phone's passkey (decision 0023), where the phone page is served under a name with a public
-- authority's certificate: registered right after pairing, asked for (with user verification)
-- at every decision made on the phone. webauthn-rs's `Passkey`, as JSON.
ALTER TABLE phones ADD COLUMN passkey TEXT CHECK (passkey IS NULL OR json_valid(passkey));
