-- What a person gave beyond yes or no (decision 0027): a question card's answers, a plan's
-- mode, as JSON; sent to the agent with the decision and kept in History.
ALTER TABLE approvals ADD COLUMN given TEXT
    CHECK (given IS NULL OR (json_valid(given) AND length(given) <= 262144));
