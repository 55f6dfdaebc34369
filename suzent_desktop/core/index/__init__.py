"""Index and search: which files give rows, the table, embeddings, and the read path of a query.

Built on the files and vault layers; the engines and the front door use it.
"""
