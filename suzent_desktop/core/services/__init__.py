"""Use-case services: what the window, the command line and the MCP server ask of a home.

Each service takes only the stores it uses (built once by ``core/home.open_home``) and stands above
the engines and the index, below the front door: no engine or store calls back into one.
"""
