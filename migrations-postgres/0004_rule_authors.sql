-- As SQLite's 0020: who made a rule on the team's page, and the project it is limited to.
ALTER TABLE grants ADD COLUMN author_id TEXT REFERENCES people (id);
ALTER TABLE grants ADD COLUMN author_name TEXT;
ALTER TABLE grants ADD COLUMN team_project TEXT CHECK (team_project IS NULL OR length(team_project) BETWEEN 1 AND 100);
CREATE INDEX grants_by_author ON grants (author_id) WHERE author_id IS NOT NULL;
