"""Where a home's files live: its layout, the folders opened as vaults, the path settings this app wrote."""
