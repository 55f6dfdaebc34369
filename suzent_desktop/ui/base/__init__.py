"""What every widget stands on: the application and its loop, the signal bus and services, file events, theme and icons."""
