"""A person's own settings for the pages (the colour theme)."""
