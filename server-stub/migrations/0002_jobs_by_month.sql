-- The jobs made in a calendar month (UTC), read under the budget lock at every capped create.
CREATE INDEX jobs_by_month ON jobs ((left(record->>'created_at', 7)));
