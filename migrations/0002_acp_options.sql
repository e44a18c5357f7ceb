-- The permission options of an Agent Client Protocol request, so its outcome can name one.
ALTER TABLE approvals ADD COLUMN acp_options TEXT;
