-- What each job commits against the monthly caps (its estimate while queued or running, its
-- cost once finished), written with its record: a capped create sums it under the budget lock
-- rather than reading every record of the month. NULL on rows written before it, which are
-- read whole instead.
ALTER TABLE jobs ADD COLUMN spend_usd double precision;
