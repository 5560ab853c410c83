"""Form fields shared by form pages and wait pages (docs/forms.md): their
definitions, the checking of what a visitor sent, and the storing of files."""
