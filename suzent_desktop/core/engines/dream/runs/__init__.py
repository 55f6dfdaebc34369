"""A dream run's bookkeeping: when one is due, one at a time across devices, resumed or already done, its outcome."""
