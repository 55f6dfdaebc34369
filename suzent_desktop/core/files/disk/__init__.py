"""Safe reads and writes: which files may be touched, regular files under a size limit, atomic replacement, text hygiene, named crash points."""
