"""Executing pages: the environment, the cache and its key, one kernel per page, the scheduler."""
