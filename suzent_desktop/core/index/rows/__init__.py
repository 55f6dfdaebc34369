"""What the files give the index: which files should have rows, a file's rows and chunks, what a pass must do."""
