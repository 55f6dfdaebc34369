"""The index on disk: the LanceDB table, the per-file state, the write locks, the ANN index, the table checked against the files."""
