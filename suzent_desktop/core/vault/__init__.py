"""The vault model: pages, their links, tags, properties and fact bullets, the notebook.

Built on the files layer only; the index, the engines and the front door read it.
"""
