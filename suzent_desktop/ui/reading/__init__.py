"""Reading view: markdown rendered to HTML in a text browser, wide tables held to the pane."""
