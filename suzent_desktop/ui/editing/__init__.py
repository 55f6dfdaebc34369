"""Keys and aids while typing: auto pairs, markdown keys, lists, [[ completion, find and replace."""
