"""Reading pages: parse and validate them, pair them with their notebooks, and the checks on their prose."""
