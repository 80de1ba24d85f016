"""``doctor``: what works with Cursor today, and reaching the service one layer at a time."""
