"""Older torch releases as an axis: run every page under each, compare, report what changed."""
