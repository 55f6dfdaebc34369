"""The main window's frame: menus and docks, the vault tree, recent vaults, files changing on disk."""
