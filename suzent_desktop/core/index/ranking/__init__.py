"""How a query is answered: its terms and filters, the lists asked and fused, hits and their order."""
