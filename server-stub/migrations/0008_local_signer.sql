-- The local Content Credentials signer (made when no certificate is configured), one for every
-- replica: the first replica to start keeps its own here, the others sign with it.
CREATE TABLE local_signer (
    one     boolean PRIMARY KEY DEFAULT true CHECK (one),
    chain   bytea NOT NULL,
    key     bytea NOT NULL,
    made_at timestamptz NOT NULL DEFAULT now()
);
