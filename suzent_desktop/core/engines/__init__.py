"""The engines that change memory: extraction, the dream, promotion, forgetting, recall.

Built on the layers below; only the front door (core/ top level) drives them.
"""
