"""A home shared by devices and sync tools: which device writes, per-device streams, sync checks and conflict copies."""
