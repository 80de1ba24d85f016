"""The person's Cursor account: sign-in, the kept token, the server's config, the dashboard."""
