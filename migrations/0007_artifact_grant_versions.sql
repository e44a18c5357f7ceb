-- A grant for an artifact's calls holds for the artifact's code as it was when the call was
-- asked: new code from an agent pauses it until the person carries it over after seeing the
-- change, and restoring that code brings it back. Approvals record the artifact's version at
-- the time of asking; grants the version they hold for.
ALTER TABLE approvals ADD COLUMN artifact_version INTEGER;
ALTER TABLE grants ADD COLUMN artifact_version INTEGER;

-- Grants made before keep their meaning for the code the artifact has now. Earlier approvals
-- stay without a version: a grant made from one later holds for no code until carried over.
UPDATE grants SET artifact_version = (SELECT version FROM artifacts WHERE artifacts.id = grants.artifact_id)
 WHERE artifact_id IS NOT NULL;
